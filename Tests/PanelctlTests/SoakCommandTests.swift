import Testing

/// `panelctl sim soak` in a process of its own: its exit status holds
/// every check (no false or stuck touch, every fault seen and recovered
/// from) and its resident memory, which only a process of its own measures
/// (FaultSoakTests runs beside other tests).
@Suite struct SoakCommandTests {
  @Test func aShortSoakPassesAndItsMemoryStaysFlat() throws {
    let r = try Panelctl.run(["sim", "soak", "--frames", "20000", "--seed", "3"], input: nil, timeout: 600)
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    let memory = r.lines.first { $0.hasPrefix("resident memory ") } ?? ""
    let figures = memory.split(separator: " ").compactMap { Int($0) }
    #expect(figures.count == 2, "\(memory)")
    if figures.count == 2 { #expect(figures[1] - figures[0] < 1024, "\(memory)") }
    #expect(r.stdout.contains("false touches 0, stuck touches 0"), "\(r.stdout)")
  }
}
