import PanelFormats
import PanelTouch

/// A setting the host changes while the panel runs (docs/regions.md,
/// "Control lines").
public enum InteractionCommand: Sendable {
  /// `sensitivity light|medium|firm`
  case sensitivity(Sensitivity)
  /// `force_touch on|off`
  case forceTouch(Bool)
  /// `regions FILE`: replace every item.
  case regions(RegionMap)
  /// `quick_actions ITEM [{title = "...", subtitle = "...", icon = "..."}, ...]`
  case quickActions(item: String, actions: [QuickAction])
}

/// One control line: a command, applied at once or at a stream time.
public struct ControlLine: Sendable {
  /// Seconds after the first frame (`at SECONDS ...`), nil = at once.
  public var at_s: Double?
  public var command: InteractionCommand

  public init(at_s: Double? = nil, command: InteractionCommand) {
    self.at_s = at_s
    self.command = command
  }

  /// Parses one line of `file` (line `line`). Blank lines and `#` comments
  /// give nil. `regions FILE` is loaded (relative to `file`'s directory)
  /// and `regions [ITEM, ...]` read from the line, both checked against
  /// `board`'s panel. With `files` false (lines from the network) a line
  /// that names a file is refused: the server's files are not a remote
  /// host's to read.
  public static func parse(
    _ text: String, file: String, line: Int, board: Board, files: Bool = true
  ) throws(FileError) -> ControlLine? {
    func fail(_ field: String?, _ message: String) -> FileError {
      FileError(file: file, line: line, field: field, message: message)
    }
    var rest = Substring(text)
    if let hash = rest.firstIndex(of: "#"), !rest[..<hash].contains("[") { rest = rest[..<hash] }
    rest = rest.drop { $0 == " " || $0 == "\t" }
    while let last = rest.last, last == " " || last == "\t" || last == "\r" { rest = rest.dropLast() }
    if rest.isEmpty { return nil }
    var (word, tail) = ControlLine.split(rest)
    var at: Double?
    if word == "at" {
      let (time, after) = ControlLine.split(tail)
      guard let t = Double(time) else {
        throw fail("at", "expected a time in seconds (0 or more), found \(Quote.text(time))")
      }
      if !ValueBound.scriptTime_s.contains(t) { throw fail("at", ValueBound.scriptTime_s.violation(t)) }
      at = t
      (word, tail) = ControlLine.split(after)
    }
    let argument = String(tail)
    switch word {
    case "sensitivity":
      guard let s = Sensitivity(rawValue: argument) else {
        throw fail("sensitivity", "\(Quote.text(argument)) is not one of light, medium, firm")
      }
      return ControlLine(at_s: at, command: .sensitivity(s))
    case "force_touch":
      switch argument {
      case "on", "true": return ControlLine(at_s: at, command: .forceTouch(true))
      case "off", "false": return ControlLine(at_s: at, command: .forceTouch(false))
      default: throw fail("force_touch", "\(Quote.text(argument)) is not one of on, off")
      }
    case "regions":
      if argument.isEmpty { throw fail("regions", "expected a regions file or a list of items") }
      if argument.hasPrefix("[") {
        let map = try ControlLine.inlineRegions(argument, file: file, line: line, board: board)
        return ControlLine(at_s: at, command: .regions(map))
      }
      if !files {
        throw fail("regions", "a file cannot be named here; give the items on the line: regions [{name = \"...\", ...}]")
      }
      let path = Paths.resolve(argument, relativeTo: file)
      return ControlLine(at_s: at, command: .regions(try RegionMap.load(path: path, board: board)))
    case "quick_actions":
      let (item, list) = ControlLine.split(tail)
      if item.isEmpty || list.isEmpty {
        throw fail("quick_actions", "expected an item name and a list: quick_actions ITEM [{title = \"...\"}]")
      }
      // The list is TOML: parse it as the value of a one-key table; errors
      // point at this line.
      var actions: [QuickAction] = []
      do {
        let table = try TOML.parse("quick_action = " + list, file: file)
        for a in try table.tables("quick_action") { actions.append(try RegionMap.quickAction(a)) }
      } catch {
        var e = error
        e.line = line
        throw e
      }
      return ControlLine(at_s: at, command: .quickActions(item: String(item), actions: actions))
    default:
      throw fail(nil, "unknown command \(Quote.text(word)) (expected one of: sensitivity, force_touch, regions, quick_actions)")
    }
  }

  /// `regions [ITEM, ...]`: a TOML array of inline tables with the keys of
  /// a regions file's `[[item]]` (`quick_action` an array of inline
  /// tables), checked like a file; errors point at this line.
  static func inlineRegions(_ list: String, file: String, line: Int, board: Board) throws(FileError) -> RegionMap {
    do {
      // The items are line 1 of what is parsed: errors and warnings are moved to this line.
      let map = try RegionMap(table: TOML.parse("item = " + list, file: file), board: board)
      let parsed = "\(file):1: "
      return map.with(
        warnings: map.warnings.map { $0.hasPrefix(parsed) ? "\(file):\(line): " + $0.dropFirst(parsed.count) : $0 })
    } catch {
      var e = error
      e.line = line
      throw e
    }
  }

  /// Whether `text` is a `regions` line (with or without `at SECONDS`):
  /// the one command that loads or compiles a map, so the one a real-time
  /// run parses off its frame loop (`ControlChannel.Loading`).
  public static func loadsRegions(_ text: String) -> Bool {
    var (word, tail) = split(Substring(text).drop { $0 == " " || $0 == "\t" })
    if word == "at" { (word, tail) = split(split(tail).1) }
    return word == "regions"
  }

  /// The first word and the rest, without the spaces between.
  static func split(_ s: Substring) -> (Substring, Substring) {
    let word = s.prefix { $0 != " " && $0 != "\t" }
    let rest = s.dropFirst(word.count).drop { $0 == " " || $0 == "\t" }
    return (word, rest)
  }
}

extension InteractionCommand {
  /// The advice (`RegionRules.advice`) on what this command declared, once
  /// `interaction` has applied it: a new map's warnings, or those of the
  /// quick actions it replaced. Items given on the line are placed at
  /// `place` (the control line, `FILE:LINE`); a regions file's warnings
  /// name their own file and line.
  public func warnings(after interaction: Interaction, place: String) -> [String] {
    switch self {
    case .regions(let map): return map.file.isEmpty ? map.warnings.map { "\(place): \($0)" } : map.warnings
    case .quickActions: return interaction.regions.warnings.map { "\(place): \($0)" }
    case .sensitivity, .forceTouch: return []
    }
  }
}

extension Interaction {
  /// Applies a host command.
  public mutating func apply(_ command: InteractionCommand) throws(RegionViolation) {
    switch command {
    case .sensitivity(let s): setSensitivity(s)
    case .forceTouch(let on): setForceTouch(on)
    case .regions(let map): replaceRegions(map)
    case .quickActions(let item, let actions): try replaceQuickActions(of: item, with: actions)
    }
  }
}
