import PanelFormats

/// A figure of the evaluation (a column of its table, a key of its JSON).
public enum EvaluationMetric: String, Sendable, CaseIterable {
  case recall
  case precision
  case falseTouches = "false_touches"
  case falseSeconds = "false_s"
  case latency = "latency_ms"
  case position = "position_rms_mm"
  case force = "force_error_pct"
  case tapsWithoutPeek = "taps_no_peek"
  case peekOnly = "peek_only"
  case popOnce = "pop_once"
  case pairs = "pairs_stable"

  /// The figure in a score (nil: it does not apply there).
  public func value(in s: ScenarioScore) -> Double? {
    switch self {
    case .recall: return s.recall
    case .precision: return s.precision
    case .falseTouches: return Double(s.falseTouches)
    case .falseSeconds: return s.falseSeconds
    case .latency: return s.latency_ms
    case .position: return s.positionRMS_mm
    case .force: return s.forceError_pct
    case .tapsWithoutPeek: return s.tapsWithoutPeek
    case .peekOnly: return s.peekOnly
    case .popOnce: return s.popOnce
    case .pairs: return s.pairsStable
    }
  }
}

/// One bar a figure must meet (issue 10, "Must show"), on the scenarios it
/// is about.
public struct EvaluationBar: Sendable, Equatable {
  public var metric: EvaluationMetric
  /// At least `limit` (fractions), else at most.
  public var atLeast: Bool
  public var plate: Double
  public var grid: Double
  /// The scenarios the bar applies to (nil: every one with the figure).
  public var scenarios: [String]?

  public func limit(_ kind: PanelEnvelope.Kind) -> Double { kind == .plate ? plate : grid }

  public func applies(to scenario: String) -> Bool { scenarios?.contains(scenario) ?? true }

  /// Whether `value` meets the bar.
  public func met(_ value: Double, _ kind: PanelEnvelope.Kind) -> Bool {
    atLeast ? value >= limit(kind) : value <= limit(kind)
  }

  /// `>= 0.98`, `<= 1.5`.
  public func describe(_ kind: PanelEnvelope.Kind) -> String {
    (atLeast ? ">= " : "<= ") + Format.short(limit(kind))
  }

  /// The bars: recall and precision 0.98; no false touch in the drift,
  /// cooling and parked scenarios; median force error on plateaus 2 %
  /// (plates), 3 % (grids); position RMS on plateaus 1.0 mm, 1.5 mm; light
  /// taps never peek, peek presses peek without popping, pop presses pop
  /// once, 0.97 each; two-finger pairs stable 0.95; median onset latency 8 ms.
  public static let all: [EvaluationBar] = [
    EvaluationBar(metric: .recall, atLeast: true, plate: 0.98, grid: 0.98),
    EvaluationBar(metric: .precision, atLeast: true, plate: 0.98, grid: 0.98),
    EvaluationBar(metric: .falseTouches, atLeast: false, plate: 0, grid: 0, scenarios: ["ramp", "cooling", "parked"]),
    EvaluationBar(metric: .latency, atLeast: false, plate: 8, grid: 8),
    EvaluationBar(metric: .position, atLeast: false, plate: 1.0, grid: 1.5, scenarios: ["taps", "presses"]),
    EvaluationBar(metric: .force, atLeast: false, plate: 2, grid: 3, scenarios: ["taps", "presses"]),
    EvaluationBar(metric: .tapsWithoutPeek, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .peekOnly, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .popOnce, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .pairs, atLeast: true, plate: 0.95, grid: 0.95),
  ]

  /// The bar on `metric` in `scenario`, if any.
  public static func bar(_ metric: EvaluationMetric, scenario: String) -> EvaluationBar? {
    all.first { $0.metric == metric && $0.applies(to: scenario) }
  }
}

/// A figure that misses its bar.
public struct EvaluationMiss: Sendable, Equatable, CustomStringConvertible {
  public var panel: String
  public var scenario: String
  public var metric: EvaluationMetric
  public var value: Double
  public var bar: String

  public var description: String {
    "\(panel) \(scenario) \(metric.rawValue) \(Format.short(value)) (bar \(bar))"
  }
}
