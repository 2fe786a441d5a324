import ArgumentParser

/// What the argument parser cannot say about a mistyped command line: which
/// word is unknown, and what was probably meant.
///
/// The parser reports the first rule a command line breaks, which is often
/// not the mistake (`stream --borad B` is "missing --board"; `strem --board
/// B` is "unknown option --board"). When parsing fails, `diagnose` walks the
/// words against the command tree — subcommands from each command's
/// configuration, options from its help — and names the first unknown word
/// with the nearest known one.
enum CommandLineHelp {
  /// `--opt -1` as `--opt=-1`: a negative number after an option is that
  /// option's value (panelctl has no option named by a digit), so that the
  /// option's own range check answers instead of "missing value".
  static func joiningNegativeValues(_ args: [String]) -> [String] {
    var out: [String] = []
    var i = 0
    while i < args.count {
      let word = args[i]
      if word == "--" {
        out += args[i...]
        break
      }
      if word.hasPrefix("--"), !word.contains("="), i + 1 < args.count, isNegativeNumber(args[i + 1]) {
        out.append(word + "=" + args[i + 1])
        i += 2
        continue
      }
      out.append(word)
      i += 1
    }
    return out
  }

  static func isNegativeNumber(_ word: String) -> Bool {
    guard word.count > 1, word.first == "-" else { return false }
    return Double(word) != nil
  }

  /// One line naming the first unknown subcommand or option of `args` (the
  /// words after the program's name) and the nearest known one; nil when
  /// every word is known (the parser's own message is then the right one).
  static func diagnose(_ args: [String]) -> String? {
    let root: ParsableCommand.Type = PanelCtl.self
    var command = root
    var path = [name(of: root)]
    var i = 0
    while i < args.count {
      let word = args[i]
      if word == "--" { return nil }
      let subcommands = command.configuration.subcommands
      if word.hasPrefix("-") {
        let options = Self.options(of: command, root: root)
        let name = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
        guard let option = options.first(where: { $0.name == name }) else {
          if !word.hasPrefix("--") { return nil }  // short flags: the parser's message says it
          var line = "unknown option '\(name)' for '\(path.joined(separator: " "))'"
          if let near = nearest(name, in: options.map(\.name)) { line += "; did you mean '\(near)'?" }
          return line
        }
        i += option.takesValue && !word.contains("=") ? 2 : 1
        continue
      }
      if !subcommands.isEmpty {
        guard let next = subcommands.first(where: { name(of: $0) == word }) else {
          let names = subcommands.map { name(of: $0) }
          var line = "'\(word)' is not a command of '\(path.joined(separator: " "))'"
          if let near = nearest(word, in: names) { line += "; did you mean '\(near)'?" }
          return line + " (commands: \(names.joined(separator: ", ")))"
        }
        command = next
        path.append(word)
      }
      i += 1  // a subcommand, or a positional argument
    }
    return nil
  }

  static func name(of command: ParsableCommand.Type) -> String {
    command._commandName
  }

  struct Option: Equatable {
    var name: String
    var takesValue: Bool
  }

  /// The long and short options `command`'s help lists (hidden ones too),
  /// and whether each takes a value (`--board <BOARD.toml>`).
  static func options(of command: ParsableCommand.Type, root: ParsableCommand.Type) -> [Option] {
    let help =
      command == root
      ? root.helpMessage(includeHidden: true, columns: 10_000)
      : root.helpMessage(for: command, includeHidden: true, columns: 10_000)
    var options: [Option] = []
    for line in help.split(separator: "\n") {
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("-"), trimmed.count < line.count else { continue }
      // The option column ends at the first run of two spaces.
      let column = optionColumn(trimmed)
      let takesValue = column.contains("<")
      for part in column.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" }) where part.hasPrefix("-") {
        options.append(Option(name: String(part), takesValue: takesValue))
      }
    }
    return options
  }

  /// A help line up to its first run of two spaces (where the description starts).
  static func optionColumn(_ line: Substring) -> String {
    var previous: Character = "x"
    for i in line.indices {
      if line[i] == " " && previous == " " { return String(line[..<line.index(before: i)]) }
      previous = line[i]
    }
    return String(line)
  }

  /// The known word closest to `word` by edit distance, when it is close
  /// enough to be a typo (at most a third of the word's letters, at least 1).
  static func nearest(_ word: String, in known: [String]) -> String? {
    let limit = max(1, word.count / 3)
    let scored = known.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
    return scored.min { $0.1 < $1.1 }?.0
  }

  /// Damerau–Levenshtein distance (optimal string alignment): a swapped pair
  /// of letters (`borad`) counts as one edit.
  static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
        }
      }
    }
    return d[a.count][b.count]
  }
}
