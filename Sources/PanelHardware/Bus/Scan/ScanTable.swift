/// The text `panelctl scan` prints: i2cdetect's table, then one line per
/// address that answered with what it looks like.
public enum ScanTable {
  /// i2cdetect's grid: a row per 16 addresses; `--` nobody answered, `UU`
  /// claimed by a kernel driver, `!!` the transfer failed, the address when
  /// a chip answered; blank outside the range.
  public static func grid(_ scan: BusScan) -> String {
    var out = "    " + (0..<16).map { " " + String($0, radix: 16) + " " }.joined()
    out = String(out.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
    for row in stride(from: 0, to: 0x80, by: 16) {
      guard row + 15 >= scan.range.lowerBound, row <= scan.range.upperBound else { continue }
      var line = hex(UInt8(row)) + ":"
      for col in 0..<16 {
        let a = UInt8(row + col)
        switch scan.result(at: a) {
        case nil: line += "   "
        case .absent: line += " --"
        case .claimed: line += " UU"
        case .failed: line += " !!"
        case .present: line += " " + hex(a)
        }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      out += line + "\n"
    }
    return out
  }

  /// "0x2a  NAU7802  REV_ID 0x0f" per address that answered or failed.
  public static func listing(_ scan: BusScan) -> String {
    var out = ""
    for (a, r) in zip(scan.range, scan.results) {
      let address = I2CAddress(a).description
      switch r {
      case .present(let id?):
        out += address + "  " + pad(id.kind.rawValue) + id.summary + "\n"
      case .present(nil):
        out += address + "  " + pad("?") + "answers; not a chip panelctl knows\n"
      case .failed(let e):
        out += address + "  " + pad("!!") + e.description + "\n"
      case .claimed:
        out += address + "  " + pad("UU") + "in use by a kernel driver\n"
      case .absent:
        break
      }
    }
    return out
  }

  static func pad(_ s: String) -> String { s.count >= 14 ? s + " " : s + String(repeating: " ", count: 14 - s.count) }

  static func hex(_ v: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String(digits[Int(v >> 4)]) + String(digits[Int(v & 15)])
  }
}
