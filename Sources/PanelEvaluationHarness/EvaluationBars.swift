import PanelFormats

/// A figure of the evaluation (a column of its table, a key of its JSON).
package enum EvaluationMetric: String, Sendable, CaseIterable {
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
  case merged = "pairs_merged"
  case alternating = "pairs_alternating"
  case idSwaps = "id_swaps"
  case held = "held_kept"
  case absorbed = "absorbed_s"
  case bound = "position_crb_mm"

  /// The figure in a score (nil: it does not apply there).
  package func value(in s: ScenarioScore) -> Double? {
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
    case .merged: return s.pairsMerged
    case .alternating: return s.pairsAlternating
    case .idSwaps: return s.idSwaps.map(Double.init)
    case .held: return s.heldKept
    case .absorbed: return s.absorbed_s
    case .bound: return s.positionBound_mm
    }
  }
}

/// One bar a figure must meet (issue 10, "Must show"), on the scenarios it
/// is about.
package struct EvaluationBar: Sendable, Equatable {
  package var metric: EvaluationMetric
  /// At least `limit` (fractions), else at most.
  package var atLeast: Bool
  package var plate: Double
  package var grid: Double
  /// The scenarios the bar applies to (nil: every one with the figure).
  package var scenarios: [String]?
  /// Scenarios it does not apply to.
  package var except: [String] = []
  /// Only on grids of at most this pitch, mm (nil: any panel).
  package var maxPitch_mm: Double?

  package init(
    metric: EvaluationMetric, atLeast: Bool, plate: Double, grid: Double, scenarios: [String]? = nil,
    except: [String] = [], maxPitch_mm: Double? = nil
  ) {
    self.metric = metric
    self.atLeast = atLeast
    self.plate = plate
    self.grid = grid
    self.scenarios = scenarios
    self.except = except
    self.maxPitch_mm = maxPitch_mm
  }

  package func limit(_ kind: PanelEnvelope.Kind) -> Double { kind == .plate ? plate : grid }

  /// The limit for one score: on a plate, position within 1.25 times the
  /// Cramér–Rao bound where the bound is above 0.8 mm.
  package func limit(_ kind: PanelEnvelope.Kind, _ score: ScenarioScore?) -> Double {
    let base = limit(kind)
    guard metric == .position, kind == .plate, let bound = score?.positionBound_mm, bound > 0.8 else { return base }
    return max(base, 1.25 * bound)
  }

  package func applies(to scenario: String) -> Bool {
    (scenarios?.contains(scenario) ?? true) && !except.contains(scenario)
  }

  /// Whether `value` meets the bar (for `score`, when its limit depends on it).
  package func met(_ value: Double, _ kind: PanelEnvelope.Kind, _ score: ScenarioScore? = nil) -> Bool {
    atLeast ? value >= limit(kind, score) : value <= limit(kind, score)
  }

  /// `>= 0.98`, `<= 1.5`.
  package func describe(_ kind: PanelEnvelope.Kind, _ score: ScenarioScore? = nil) -> String {
    (atLeast ? ">= " : "<= ") + Format.short(limit(kind, score))
  }

  /// The bars: recall and precision 0.98; no false touch in the drift,
  /// cooling and parked scenarios; median force error on plateaus 2 %
  /// (plates), 3 % (grids); position RMS on plateaus 1.0 mm, 1.5 mm; light
  /// taps never peek, peek presses peek without popping, pop presses pop
  /// once, 0.97 each; two-finger pairs stable 0.95; median onset latency 8 ms
  /// (issue 10). Where users go (issue 23): the same position, force and
  /// stage bars in the outer band; still pairs 30 mm apart or more on grids
  /// of at most 20 mm pitch stable 0.95; no pair alternating between one
  /// touch and two, no id swap, no false touch; every held finger kept; an
  /// object absorbed within 60 s. A slow press from start-up is reported
  /// (recall), its onset not timed.
  package static let all: [EvaluationBar] = [
    EvaluationBar(metric: .recall, atLeast: true, plate: 0.98, grid: 0.98),
    EvaluationBar(metric: .precision, atLeast: true, plate: 0.98, grid: 0.98),
    EvaluationBar(
      metric: .falseTouches, atLeast: false, plate: 0, grid: 0,
      scenarios: ["ramp", "cooling", "parked", "edges", "held", "startup", "pairs", "close-pairs", "pinch"]),
    EvaluationBar(metric: .latency, atLeast: false, plate: 8, grid: 8, except: ["startup"]),
    EvaluationBar(metric: .position, atLeast: false, plate: 1.0, grid: 1.5, scenarios: ["taps", "presses", "edges"]),
    EvaluationBar(metric: .force, atLeast: false, plate: 2, grid: 3, scenarios: ["taps", "presses", "edges"]),
    EvaluationBar(metric: .tapsWithoutPeek, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .peekOnly, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .popOnce, atLeast: true, plate: 0.97, grid: 0.97),
    EvaluationBar(metric: .pairs, atLeast: true, plate: 0.95, grid: 0.95, scenarios: ["two-finger"]),
    EvaluationBar(metric: .pairs, atLeast: true, plate: 0.95, grid: 0.95, scenarios: ["pairs"], maxPitch_mm: 20),
    EvaluationBar(
      metric: .alternating, atLeast: false, plate: 0, grid: 0, scenarios: ["two-finger", "pairs", "close-pairs", "pinch"]),
    EvaluationBar(metric: .idSwaps, atLeast: false, plate: 0, grid: 0, scenarios: ["two-finger", "pairs", "close-pairs", "pinch"]),
    EvaluationBar(metric: .held, atLeast: true, plate: 1, grid: 1, scenarios: ["held"]),
    EvaluationBar(metric: .absorbed, atLeast: false, plate: 60, grid: 60, scenarios: ["held", "parked"]),
  ]

  /// The bar on `metric` in `scenario`, if any (on a grid of `pitch_mm`).
  package static func bar(_ metric: EvaluationMetric, scenario: String, pitch_mm: Double? = nil) -> EvaluationBar? {
    all.first {
      $0.metric == metric && $0.applies(to: scenario)
        && ($0.maxPitch_mm.map { limit in pitch_mm.map { $0 <= limit } ?? false } ?? true)
    }
  }
}

/// A figure that misses its bar.
package struct EvaluationMiss: Sendable, Equatable, CustomStringConvertible {
  package var panel: String
  package var scenario: String
  package var metric: EvaluationMetric
  package var value: Double
  package var bar: String

  package var description: String {
    "\(panel) \(scenario) \(metric.rawValue) \(Format.short(value)) (bar \(bar))"
  }
}
