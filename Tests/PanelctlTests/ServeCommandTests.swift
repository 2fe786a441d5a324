import Foundation
import Testing

/// `panelctl serve`'s own options: usage errors name the option, an address
/// it cannot listen on is one line and status 1; the options it shares with
/// `stream` are the same group (a bad board file reads the same).
@Suite struct ServeCommandTests {
  @Test func badOptionsAreUsageErrors() throws {
    for (arguments, message) in [
      (["--listen", "127.0.0.1"], "--listen \"127.0.0.1\": no port"),
      (["--listen", "127.0.0.1:99999"], "the port must be a number from 0 to 65535"),
      (["--token", "short"], "--token must be at least 8 characters"),
      (["--max-clients", "0"], "--max-clients must be 1...1024"),
      (["--wait-clients", "5", "--max-clients", "4"], "--wait-clients must be 0...4"),
      (["--max-connections", "40"], "--max-connections must be 80...65536 (--max-clients + 16)"),
      (["--hostname", "panel.example.org:8080"], "--hostname takes a name without port or scheme"),
      (["--allow-origin", "localhost:3000"], "--allow-origin \"localhost:3000\" is not an origin: it starts with http://"),
      (["--allow-origin", "*"], "--allow-origin \"*\" would let every site's pages use the panel"),
    ] {
      let r = try Panelctl.run(["serve", "--board", "boards/sim-plate4.toml", "--frames", "1"] + arguments)
      BadInputTests.expectOneLineError(r, contains: [message], status: 64)
    }
  }

  @Test func anAddressItCannotListenOnIsOneLine() throws {
    let r = try Panelctl.run(["serve", "--board", "boards/sim-plate4.toml", "--frames", "1", "--listen", "192.0.2.1:8080"])
    BadInputTests.expectOneLineError(r, contains: ["cannot listen on 192.0.2.1:8080"])
  }

  @Test func aStaticFolderThatIsNotOneIsOneLine() throws {
    let r = try Panelctl.run(["serve", "--board", "boards/sim-plate4.toml", "--frames", "1", "--static", "boards/sim-plate4.toml"])
    BadInputTests.expectOneLineError(r, contains: ["--static boards/sim-plate4.toml: not a folder"])
  }

  @Test func theBoardOptionsAreStreams() throws {
    let stream = try Panelctl.run(["stream", "--board", "boards/none.toml", "--frames", "1"])
    let serve = try Panelctl.run(["serve", "--board", "boards/none.toml", "--frames", "1"])
    #expect(serve.status == stream.status && serve.status == 1)
    #expect(serve.stderr == stream.stderr)
    let help = try Panelctl.run(["serve", "--help"]).stdout
    for option in ["--scenario", "--regions", "--control", "--sensitivity", "--force-touch", "--uncalibrated", "--calibration", "--listen", "--token", "--allow-origin", "--hostname", "--static", "--max-connections"] {
      #expect(help.contains(option), "\(option) missing from serve --help")
    }
  }
}
