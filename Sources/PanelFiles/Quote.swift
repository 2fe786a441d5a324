/// Input quoted in a message: at most `maxCharacters` characters between
/// double quotes, then `...` when there was more, with every character that
/// is not printable escaped (`\n`, `\t`, `\u{1B}`), so that a message stays
/// one short line whatever the input held (a 10 MB line, escape sequences
/// from the network).
///
///     Quote.text("fast")               // "fast" with the quotes
///     Quote.text("a\u{1B}[2J")         // "a\u{1B}[2J", escaped
public enum Quote {
  /// The most characters of input a message shows.
  public static let maxCharacters = 60

  /// `text` quoted and escaped, cut after `limit` characters.
  public static func text<S: StringProtocol>(_ text: S, limit: Int = maxCharacters) -> String {
    let shown = text.prefix(limit)
    var out = "\""
    for scalar in shown.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      default: escaped(scalar, into: &out)
      }
    }
    out += "\""
    if let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end != text.endIndex {
      out += "..."
    }
    return out
  }

  /// Bytes (UTF-8 or not) quoted as `text` quotes a string.
  public static func bytes<C: Collection<UInt8>>(_ bytes: C, limit: Int = maxCharacters) -> String {
    let head = bytes.prefix(limit * 4)
    var shown = text(String(decoding: head, as: UTF8.self), limit: limit)
    if head.count < bytes.count && !shown.hasSuffix("...") { shown += "..." }
    return shown
  }

  /// `text` with what is not printable escaped (no quotes, no cut): for
  /// text from outside that is printed whole (`panelctl listen`).
  public static func printable<S: StringProtocol>(_ text: S) -> String {
    var out = ""
    for scalar in text.unicodeScalars { escaped(scalar, into: &out) }
    return out
  }

  /// The longest line a message may take, whole (`panelctl: error: `
  /// and a closing `...` included): `line(_:)` cuts the rest.
  public static let maxLineCharacters = 500

  /// `text` as one bounded line: escaped like `printable`, and at most
  /// `maxLineCharacters` characters once escaped, ending in `...` when cut
  /// (the safety net under every message on standard error, whatever a
  /// caller put in it).
  public static func line<S: StringProtocol>(_ text: S) -> String {
    let head = text.prefix(maxLineCharacters + 1)
    let out = printable(head)
    if out.count <= maxLineCharacters && head.endIndex == text.endIndex { return out }
    return String(out.prefix(maxLineCharacters - 3)) + "..."
  }

  /// Whether `scalar` prints as itself on a terminal (no control, format,
  /// separator or unassigned code point).
  public static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
      return false
    default:
      return true
    }
  }

  static func escaped(_ scalar: Unicode.Scalar, into out: inout String) {
    switch scalar {
    case "\n": out += "\\n"
    case "\t": out += "\\t"
    case "\r": out += "\\r"
    default:
      if isPrintable(scalar) {
        out.unicodeScalars.append(scalar)
      } else {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
  }
}
