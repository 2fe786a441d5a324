import Testing

/// A mistyped command line is answered with the word that is wrong and the
/// word that was probably meant, not with the first rule the parser broke.
@Suite struct TypoTests {
  @Test func aMistypedOptionIsNamedWithTheNearestOne() throws {
    let r = try Panelctl.run(["stream", "--borad", "boards/sim-plate4.toml"])
    BadInputTests.expectOneLineError(
      r, contains: ["unknown option '--borad' for 'panelctl stream'", "did you mean '--board'?"], status: 64)
    #expect(!r.stderr.contains("Missing expected argument"))
  }

  @Test func aMistypedCommandListsTheCommandsAndSuggestsOne() throws {
    let r = try Panelctl.run(["strem", "--board", "boards/sim-plate4.toml"])
    BadInputTests.expectOneLineError(
      r, contains: ["'strem' is not a command of 'panelctl'", "did you mean 'stream'?", "stream, serve, monitor"],
      status: 64)
    #expect(!r.stderr.contains("Unknown option '--board'"))
  }

  @Test func aMistypedSubcommandOfSim() throws {
    let r = try Panelctl.run(["sim", "evaluat", "--quick"])
    BadInputTests.expectOneLineError(
      r, contains: ["'evaluat' is not a command of 'panelctl sim'", "did you mean 'evaluate'?"], status: 64)
  }

  @Test(arguments: [["--speed", "-1"], ["--speed=-1"]])
  func aNegativeSpeedIsOutOfRange(_ option: [String]) throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml"] + option)
    BadInputTests.expectOneLineError(r, contains: ["--speed -1 is out of range", "0 (as fast as possible)"], status: 64)
    #expect(!r.stderr.contains("Missing value"))
  }

  @Test func aNegativeFrameCountIsOutOfRange() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--frames", "-5"])
    BadInputTests.expectOneLineError(r, contains: ["--frames -5 is out of range (allowed: 1..."], status: 64)
  }

  @Test func anUnknownOptionFarFromEveryKnownOneIsNamedAlone() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--frobnicate"])
    BadInputTests.expectOneLineError(r, contains: ["unknown option '--frobnicate' for 'panelctl stream'"], status: 64)
    #expect(!r.stderr.contains("did you mean"))
  }

  @Test func aCorrectCommandLineStillRuns() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--frames", "3", "--idle"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").count == 3)
  }
}
