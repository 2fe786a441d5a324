/// String and escape parsing for `TOMLParser`.
extension TOMLParser {
  static func isForbiddenControl(_ byte: UInt8) -> Bool {
    (byte < 0x20 && byte != TOMLByte.tab) || byte == 0x7F
  }

  func controlCharacterError(_ byte: UInt8, in place: String = "a string (use an escape)") -> FileError {
    let hex = String(byte, radix: 16, uppercase: true)
    return error("control character U+\(hex.count < 2 ? "0" + hex : hex) in \(place)")
  }

  /// `"..."`, or `"""..."""` when allowed.
  mutating func parseBasicString(allowMultiline: Bool) throws(FileError) -> String {
    if allowMultiline, peek(1) == TOMLByte.quote, peek(2) == TOMLByte.quote {
      return try parseMultilineBasicString()
    }
    let startLine = line
    pos += 1
    var text: [UInt8] = []
    while true {
      guard let byte = peek() else {
        throw error("unterminated string", at: startLine)
      }
      switch byte {
      case TOMLByte.quote:
        pos += 1
        return String(decoding: text, as: UTF8.self)
      case TOMLByte.newline, TOMLByte.carriageReturn:
        throw error("unterminated string", at: startLine)
      case TOMLByte.backslash:
        try parseEscape(into: &text)
      default:
        if TOMLParser.isForbiddenControl(byte) {
          throw controlCharacterError(byte)
        }
        text.append(byte)
        pos += 1
      }
    }
  }

  private mutating func parseMultilineBasicString() throws(FileError) -> String {
    let startLine = line
    pos += 3
    try skipFirstNewline()
    var text: [UInt8] = []
    while true {
      guard let byte = peek() else {
        throw error("unterminated multi-line string", at: startLine)
      }
      if byte == TOMLByte.quote, peek(1) == TOMLByte.quote, peek(2) == TOMLByte.quote {
        return try closeMultiline(TOMLByte.quote, text: &text)
      }
      switch byte {
      case TOMLByte.backslash:
        var ahead = 1
        while let next = peek(ahead), next == TOMLByte.space || next == TOMLByte.tab {
          ahead += 1
        }
        if peek(ahead) == TOMLByte.newline || peek(ahead) == TOMLByte.carriageReturn {
          // A line-ending backslash: drop it and all whitespace up to the next text.
          pos += ahead
          while let next = peek() {
            if next == TOMLByte.space || next == TOMLByte.tab {
              pos += 1
            } else if next == TOMLByte.newline || next == TOMLByte.carriageReturn {
              try consumeNewline()
            } else {
              break
            }
          }
        } else {
          try parseEscape(into: &text)
        }
      case TOMLByte.newline, TOMLByte.carriageReturn:
        try consumeNewline()
        text.append(TOMLByte.newline)
      default:
        if TOMLParser.isForbiddenControl(byte) {
          throw controlCharacterError(byte)
        }
        text.append(byte)
        pos += 1
      }
    }
  }

  /// `'...'`, or `'''...'''` when allowed.
  mutating func parseLiteralString(allowMultiline: Bool) throws(FileError) -> String {
    let startLine = line
    let isMultiline =
      allowMultiline && peek(1) == TOMLByte.apostrophe && peek(2) == TOMLByte.apostrophe
    pos += isMultiline ? 3 : 1
    if isMultiline {
      try skipFirstNewline()
    }
    var text: [UInt8] = []
    while true {
      guard let byte = peek() else {
        throw error(isMultiline ? "unterminated multi-line string" : "unterminated string", at: startLine)
      }
      if isMultiline {
        if byte == TOMLByte.apostrophe, peek(1) == TOMLByte.apostrophe,
          peek(2) == TOMLByte.apostrophe
        {
          return try closeMultiline(TOMLByte.apostrophe, text: &text)
        }
        if byte == TOMLByte.newline || byte == TOMLByte.carriageReturn {
          try consumeNewline()
          text.append(TOMLByte.newline)
          continue
        }
      } else if byte == TOMLByte.apostrophe {
        pos += 1
        return String(decoding: text, as: UTF8.self)
      } else if byte == TOMLByte.newline || byte == TOMLByte.carriageReturn {
        throw error("unterminated string", at: startLine)
      }
      if TOMLParser.isForbiddenControl(byte) {
        throw controlCharacterError(byte)
      }
      text.append(byte)
      pos += 1
    }
  }

  /// A newline right after an opening `"""` or `'''` is not part of the string.
  private mutating func skipFirstNewline() throws(FileError) {
    if peek() == TOMLByte.newline || peek() == TOMLByte.carriageReturn {
      try consumeNewline()
    }
  }

  /// At a run of 3 or more delimiters: up to two of them belong to the string.
  private mutating func closeMultiline(_ delimiter: UInt8, text: inout [UInt8]) throws(FileError)
    -> String
  {
    var run = 3
    while peek(run) == delimiter {
      run += 1
    }
    guard run <= 5 else {
      throw error("too many quotes at the end of a multi-line string")
    }
    text.append(contentsOf: repeatElement(delimiter, count: run - 3))
    pos += run
    return String(decoding: text, as: UTF8.self)
  }

  /// At a backslash in a basic string: appends the escaped character.
  private mutating func parseEscape(into text: inout [UInt8]) throws(FileError) {
    pos += 1
    guard let code = peek() else {
      throw error("unterminated string")
    }
    pos += 1
    switch code {
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "e"): text.append(0x1B)
    case TOMLByte.quote: text.append(TOMLByte.quote)
    case TOMLByte.backslash: text.append(TOMLByte.backslash)
    case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
      let count = code == UInt8(ascii: "x") ? 2 : code == UInt8(ascii: "u") ? 4 : 8
      let letter = String(UnicodeScalar(code))
      var scalarValue: UInt32 = 0
      for offset in 0..<count {
        guard let digit = peek(offset).flatMap(TOMLNumber.hexValue) else {
          throw error("invalid escape \\\(letter): expected \(count) hex digits")
        }
        scalarValue = scalarValue << 4 | UInt32(digit)
      }
      let hex = String(decoding: bytes[pos..<pos + count], as: UTF8.self)
      pos += count
      guard let scalar = Unicode.Scalar(scalarValue) else {
        throw error("invalid escape \\\(letter)\(hex): not a Unicode scalar value")
      }
      UTF8.encode(scalar) { text.append($0) }
    default:
      let shown =
        code < 0x80 && !TOMLParser.isForbiddenControl(code)
        ? String(UnicodeScalar(code)) : "\\u{\(String(code, radix: 16))}"
      throw error("invalid escape \\\(shown) in a string")
    }
  }
}
