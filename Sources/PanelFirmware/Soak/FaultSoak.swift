import ForceCore
import PanelFormats
import PanelHardware
import PanelSimulation
import PanelStreaming
import PanelTouch

#if canImport(Glibc)
  import Glibc
#endif

/// A long run of the scan loop on a simulated twin (the real NAU7802
/// drivers on register-accurate chips behind a TCA9548A on the simulated
/// bus) with bus and chip faults injected underneath and touches scripted
/// throughout, beside a second, fault-free twin of the same panel fed the
/// same touches: what the faults did is what differs (docs/reliability.md,
/// "A soak with faults").
///
/// Checked frame by frame against the script (the truth): no touch
/// begins while no finger is on the panel (a false touch), no touch is
/// still down half a second after the last finger left (a stuck touch);
/// per fault: the health counters (the front end's or the core's) show it,
/// and the panel is back (a valid frame with as many touches as the
/// fault-free panel) within the settling time. Press by press against the
/// fault-free twin: every press outside the faults' windows is the same
/// touch — one that begins and ends within three frames of the fault-free
/// panel's — and those that reach another stage are counted. Identical
/// stages cannot be asked for: a fault moves a chip's conversions, so the
/// twins' noise differs from then on, and a press whose stage is decided
/// on noise goes either way; `placebo` measures that share
/// (docs/reliability.md, "Presses against the fault-free twin").
public struct FaultSoak {
  /// What is injected.
  public enum Fault: String, CaseIterable, Sendable {
    case nackBurst = "NACK burst"
    case stuckBus = "stuck bus (SDA held: every transfer times out)"
    case brownout = "chip brownout (reset between frames)"
    case railedCell = "cell at its rail"
    case openCell = "cell open, then mended"
    case spike = "spike at a cell's input"
    case dataReadyStopped = "data-ready line stopped"
  }

  /// One injected fault: when, where, and what the panel made of it.
  public struct Window: Sendable {
    public var fault: Fault
    public var chip: Int
    public var start_us: Int64
    /// When the fault was taken away (its cause ends; the panel may need longer).
    public var end_us: Int64
    /// Whether the health counters moved as this fault should move them.
    public var reported = false
    /// Whether the panel read the fault at all: false for a spike whose
    /// conversion the chip overwrote before the scan loop read it.
    public var reachedPanel = true
    /// The first frame after `end_us` that was valid and reported as the
    /// fault-free panel did, or nil.
    public var recovered_us: Int64?
  }

  /// What became of the faults of one kind.
  public struct Tally: Sendable {
    public var injected = 0
    /// Seen in the health counters.
    public var reported = 0
    /// Never reached the panel (a spike on a conversion overwritten
    /// before it was read): nothing to see, not counted as unreported.
    public var neverRead = 0
    public var recovered = 0
    /// The longest from a fault's end to the panel back, us.
    public var longestRecovery_us: Int64 = 0
  }

  public struct Result: Sendable {
    public var frames = 0
    public var simulated_s = 0.0
    public var touches = 0
    /// Per kind of fault, in `Fault.allCases` order.
    public var tallies = [Tally](repeating: Tally(), count: Fault.allCases.count)
    public var falseTouches = 0
    public var stuckTouches = 0
    /// Presses compared with the fault-free run (outside the windows);
    /// of them, those the faulted twin reported as the same touch (within
    /// three frames at its start and end) at another stage, and those it
    /// did not report as the same touch at all.
    public var compared = 0
    public var otherStage = 0
    public var unmatched = 0
    /// Of `otherStage`: the faulted twin at a lower stage than the
    /// fault-free one (a stage lost), and at a higher one.
    public var lowerStage = 0
    public var differing: Int { otherStage + unmatched }
    /// Resident memory after the first tenth of the run and at its end, KiB.
    public var residentEarly_kib = 0
    public var residentEnd_kib = 0
    public var frontEnd = FrontEndHealth()
    public var core = CoreHealth()

    public func tally(_ fault: Fault) -> Tally { tallies[Fault.allCases.firstIndex(of: fault)!] }
    public var injected: Int { tallies.reduce(0) { $0 + $1.injected } }
    public var unreported: Int { tallies.reduce(0) { $0 + $1.injected - $1.reported - $1.neverRead } }
    public var unrecovered: Int { tallies.reduce(0) { $0 + $1.injected - $1.recovered } }

    mutating func close(_ w: Window) {
      let k = Fault.allCases.firstIndex(of: w.fault)!
      tallies[k].injected += 1
      if w.reported { tallies[k].reported += 1 } else if !w.reachedPanel { tallies[k].neverRead += 1 }
      if let r = w.recovered_us {
        tallies[k].recovered += 1
        tallies[k].longestRecovery_us = max(tallies[k].longestRecovery_us, r - w.end_us)
      }
    }
  }

  typealias Driver = NAU7802FrontEnd<SimulatedI2CBus, SimulatedClock, SimulatedDataReadyLine>

  /// A twin and its scan loop.
  final class Panel {
    let hardware: SimulatedHardware
    let loop: ScanLoop<SimulatedTwin<Driver>>

    init(board: Board, calibration: CalibrationRecord) throws(FileError) {
      guard case .simulatedTwin(let c, let parameters) = board.frontEnd, c.chip == .nau7802 else {
        throw FileError(file: board.file, field: "[frontend]", message: "the soak runs a simulated NAU7802 twin (bus = \"sim\")")
      }
      hardware = SimulatedHardware(board: board, configuration: c, parameters: parameters, scenario: .idle(), speed: 0)
      let driver = Driver(
        configuration: c, chip: NAU7802Cell(settings: c.nau7802), bus: hardware.bus, clock: hardware.clock,
        lines: hardware.dataReadyLines(), options: RunOptions(speed: 0))
      var twin = SimulatedTwin(driver, hardware: hardware)
      do { try twin.start() } catch { throw FileError(file: board.file, message: "the twin did not start: \(error)") }
      loop = ScanLoop(source: twin, board: board, calibration: calibration)
    }

    func step() throws(FrontEndError) { _ = try loop.step() }
    var time_us: Int64 { loop.reportTime.rawValue }
    var touches: Int { loop.report.touchCount }
  }

  public let board: Board
  public let seed: UInt64
  /// How long after a fault is taken away the panel must be back: a
  /// valid frame with as many touches as the fault-free panel (a chip's
  /// restarts back off up to 1 s, and its bring-up takes some more).
  public var recoverWithin_us: Int64 = 6_000_000
  /// How long after it is back it may still differ (the cell's baseline
  /// settling), before presses are compared again.
  public var settle_us: Int64 = 1_000_000
  /// How long a touch may stay down after the fault-free panel's ended.
  public var stuckAfter_us: Int64 = 500_000
  /// Hears each fault as it is injected, and each failed check.
  public var trace: ((String) -> Void)?
  /// Injects nothing; at each fault's time the faulted twin is moved
  /// instead as a fault moves it, without the fault: what then differs
  /// from the fault-free twin is that alone (no health counter moves).
  public var placebo: Placebo?

  public enum Placebo: String, CaseIterable, Sendable {
    /// The twin's noise moved on by one draw (as a fault's retries move
    /// it): its noise is another realisation from then on.
    case noise
    /// That, and the chip's conversions moved on by a random part of
    /// their period (as a re-initialisation or a stopped data-ready line
    /// moves them): the chip converts at other instants from then on.
    case conversions
  }

  public init(board: Board, seed: UInt64) {
    self.board = board
    self.seed = seed
  }

  /// Runs `frames` frames of the faulted twin; `progress` hears the frame
  /// count every 100 000 frames.
  public func run(frames: Int, progress: (Int) -> Void = { _ in }) throws -> Result {
    let calibration = try FrontEndFactory.trueCalibration(board: board, created: "soak")
    let clean = try Panel(board: board, calibration: calibration)
    let faulted = try Panel(board: board, calibration: calibration)
    var result = Result()
    var random = SimRandom(seed: seed)
    var script = TouchScript(board: board, seed: seed)
    var nextFault_us: Int64 = 3_000_000
    var window: Window?  // the fault under watch, until its settling ends
    var on = false  // its cause still there
    var before = (FrontEndHealth(), CoreHealth())  // the counters when it was injected
    var quiet = QuietTime()  // where presses are compared
    var cleanPresses = Presses()
    var faultedPresses = Presses()
    var lastFinger_us: Int64 = 0  // the last frame time a scripted finger was down
    var stuckSince: Int64?
    let period_us = Int64(1_000_000 / board.rate_hz)
    var faultedFrames = 0
    while faultedFrames < frames {
      try clean.step()
      let t = clean.time_us
      script.install(at: t, into: [clean.hardware, faulted.hardware])
      cleanPresses.observe(clean.loop)
      if clean.touches > 0 && clean.loop.report[touch: 0].touch.phase == .began { result.touches += 1 }
      // The faulted panel up to the same frame time.
      while faulted.time_us < t && faultedFrames < frames {
        try faulted.step()
        faultedFrames += 1
        if faultedFrames % 100_000 == 0 { progress(faultedFrames) }
        if faultedFrames == frames / 10 { result.residentEarly_kib = Self.resident_kib() }
        let ft = faulted.time_us
        faultedPresses.observe(faulted.loop)
        while let notice = faulted.loop.source.takeNotice() { trace?("notice at \(ft) us: \(notice.message)") }
        // False and stuck touches, against the script.
        let down = script.fingerDown(at: ft, faulted.hardware) || script.fingerDown(at: ft - 100_000, faulted.hardware)
        if down { lastFinger_us = ft }
        for i in 0..<faulted.touches where faulted.loop.report[touch: i].touch.phase == .began && !down {
          result.falseTouches += 1
          trace?("false touch at \(ft) us (\(Self.describe(window))); \(Self.cells(faulted, clean))")
        }
        if faulted.touches > 0 && ft - lastFinger_us > stuckAfter_us {
          if stuckSince == nil {
            result.stuckTouches += 1
            trace?("stuck touch at \(ft) us (\(Self.describe(window))); \(Self.cells(faulted, clean))")
          }
          stuckSince = ft
        } else if faulted.touches == 0 {
          stuckSince = nil
        }
        // The fault under watch: taken away, recovered from, settled.
        guard var w = window else {
          if ft >= nextFault_us {
            let fault = Fault.allCases[result.injected % Fault.allCases.count]
            let chip = Int(random.next() % UInt64(faulted.hardware.nau7802s.count))
            before = (faulted.loop.source.health, faulted.loop.pipeline.health)
            let w =
              placebo != nil
              ? Self.placebo(placebo!, fault, chip: chip, at: ft, faulted.hardware, &random)
              : Self.inject(fault, chip: chip, at: ft, faulted.hardware, &random)
            trace?("\(fault) on chip \(chip) at \(ft) us, until \(w.end_us) us")
            window = w
            on = true
            nextFault_us = w.end_us + settle_us + 500_000 + Int64(random.uniform() * 4_000_000)
          }
          continue
        }
        if on && ft >= w.end_us {
          if placebo == nil { Self.clear(w, faulted.hardware) }
          on = false
        }
        if w.recovered_us == nil && ft > w.end_us && faulted.loop.frame.valid && faulted.touches == clean.touches
          && faulted.loop.report.capability == clean.loop.report.capability
        {
          w.recovered_us = ft
        }
        let settled = w.recovered_us.map { ft > $0 + settle_us } ?? false
        if settled || ft > w.end_us + recoverWithin_us {
          w.reported = Self.reported(w.fault, faulted.loop.source.health, faulted.loop.pipeline.health, since: before)
          if w.fault == .spike && placebo == nil { w.reachedPanel = faulted.hardware.nau7802s[w.chip].spikeRead ?? false }
          if !w.reported || w.recovered_us == nil {
            let unread = w.reachedPanel ? "" : " (its conversion overwritten before it was read)"
            trace?("\(Self.describe(w)): reported \(w.reported)\(unread), recovered \(w.recovered_us.map(String.init) ?? "no")")
          }
          result.close(w)
          quiet.fault(from: w.start_us - 2 * period_us, to: ft)
          nextFault_us = max(nextFault_us, ft + 500_000 + Int64(random.uniform() * 4_000_000))
          window = nil
        } else {
          window = w
        }
      }
      // Presses the fault-free panel finished a while ago, outside the
      // faults' windows: the faulted panel's must match.
      while let press = cleanPresses.oldest, press.end_us + 500_000 < t {
        cleanPresses.dropOldest()
        let open = window.map { $0.start_us - 2 * period_us <= press.end_us + 2 * period_us } ?? false
        guard !open, quiet.contains(press.start_us - 2 * period_us, press.end_us + 2 * period_us) else { continue }
        result.compared += 1
        let match = faultedPresses.match(press, within: 3 * period_us)
        if match != .same {
          switch match {
          case .otherStage(let stage):
            result.otherStage += 1
            if stage < press.stage { result.lowerStage += 1 }
          default: result.unmatched += 1
          }
          if result.differing <= 20 {
            let near = faultedPresses.done.min { abs($0.start_us - press.start_us) < abs($1.start_us - press.start_us) }
            trace?("the press from \(press.start_us) to \(press.end_us) us (\(press.stage)) was reported otherwise: \(near.map { "\($0.start_us) to \($0.end_us) us (\($0.stage))" } ?? "none")")
          }
        }
      }
      faultedPresses.forget(before: t - 5_000_000)
    }
    result.frames = faultedFrames
    result.simulated_s = Double(faulted.time_us) / 1e6
    result.residentEnd_kib = Self.resident_kib()
    result.frontEnd = faulted.loop.source.health
    result.core = faulted.loop.pipeline.health
    return result
  }
}

extension FaultSoak {
  /// Injects `fault` on `chip` (its cell) at `t`; returns its window.
  static func inject(_ fault: Fault, chip: Int, at t: Int64, _ hw: SimulatedHardware, _ random: inout SimRandom) -> Window {
    let address = hw.configuration.places[chip].address
    let nau = hw.nau7802s[chip]
    var end = t
    switch fault {
    case .nackBurst:
      hw.bus.inject(.nack, at: address, count: 2 + Int(random.next() % 23))
      end = t + 200_000
    case .stuckBus:
      let transfers = 2 + Int(random.next() % 7)
      hw.bus.inject(.timeout, count: transfers)
      end = t + Int64(transfers) * hw.bus.timeout_ns / 1000 + 100_000
    case .brownout:
      nau.brownout(at: hw.clock.now_ns)
      end = t + 100_000
    case .railedCell:
      nau.inputFault = .negativeOverload
      end = t + 300_000 + Int64(random.uniform() * 1_700_000)
    case .openCell:
      nau.inputFault = .openBridge
      end = t + 100_000 + Int64(random.uniform() * 900_000)
    case .spike:
      nau.inputSpike_counts = (random.uniform() < 0.5 ? -1 : 1) * (2e5 + random.uniform() * 2e6)
      end = t + 50_000
    case .dataReadyStopped:
      nau.pinStopped = true
      end = t + 200_000 + Int64(random.uniform() * 1_800_000)
    }
    return Window(fault: fault, chip: chip, start_us: t, end_us: end)
  }

  /// The placebo of `fault` on `chip`: nothing injected, the twin moved
  /// as `placebo` says; a window of 100 ms.
  static func placebo(
    _ placebo: Placebo, _ fault: Fault, chip: Int, at t: Int64, _ hw: SimulatedHardware, _ random: inout SimRandom
  ) -> Window {
    hw.signals.skipNoise()
    if placebo == .conversions {
      let nau = hw.nau7802s[chip]
      nau.shiftPhase(at: hw.clock.now_ns, by: Int64(random.uniform() * Double(nau.period_ns)))
    }
    return Window(fault: fault, chip: chip, start_us: t, end_us: t + 100_000)
  }

  /// Takes the fault of `window` away (a burst or a brownout is over by itself).
  static func clear(_ window: Window, _ hw: SimulatedHardware) {
    let nau = hw.nau7802s[window.chip]
    switch window.fault {
    case .nackBurst, .stuckBus, .brownout, .spike: break
    case .railedCell, .openCell: nau.inputFault = nil
    case .dataReadyStopped: nau.pinStopped = false
    }
  }

  /// Whether the counters moved as `fault` should move them since `before`.
  static func reported(
    _ fault: Fault, _ health: FrontEndHealth, _ core: CoreHealth, since before: (FrontEndHealth, CoreHealth)
  ) -> Bool {
    let (h, c) = before
    switch fault {
    case .nackBurst, .stuckBus: return health.busErrors > h.busErrors || health.retries > h.retries
    case .brownout: return health.reinitialisations > h.reinitialisations
    case .railedCell, .openCell: return core.saturatedSamples > c.saturatedSamples
    case .spike: return core.spikes > c.spikes
    case .dataReadyStopped: return health.lateReady > h.lateReady
    }
  }

  /// Each cell of both panels at their last frames, for a failed check:
  /// raw counts, baseline (counts) and force (mN), faulted / fault-free.
  static func cells(_ a: Panel, _ b: Panel) -> String {
    var text = "cells (faulted / fault-free at \(b.time_us) us): raw, baseline, mN"
    for k in 0..<a.loop.pipeline.cellCount {
      let base = { (p: Panel) in Format.fixed(Double(p.loop.pipeline.baseline(of: k).rawValue) / 65536, 0) }
      text += " | \(k): \(a.loop.frame.counts[k]) / \(b.loop.frame.counts[k]), \(base(a)) / \(base(b)),"
      text += " \(a.loop.pipeline.image[k].rawValue >> 10) / \(b.loop.pipeline.image[k].rawValue >> 10)"
    }
    return text
  }

  static func describe(_ w: Window?) -> String {
    guard let w else { return "no fault" }
    return "\(w.fault) on chip \(w.chip) at \(w.start_us) us"
  }

  /// Whether two loops reported the same at their last frame, as the
  /// stream prints it: the touches in order with their phases and stages,
  /// position to 0.1 mm, force to 0.01 N (ids may differ: a fault may have
  /// cancelled a touch and taken an id).
  static func same<A: FrontEnd, B: FrontEnd>(_ a: ScanLoop<A>, _ b: ScanLoop<B>) -> Bool {
    guard a.report.touchCount == b.report.touchCount else { return false }
    for i in 0..<a.report.touchCount {
      let x = a.report[touch: i]
      let y = b.report[touch: i]
      if x.touch.phase != y.touch.phase || x.stage != y.stage { return false }
      if x.touch.x.rawValue / 100 != y.touch.x.rawValue / 100 || x.touch.y.rawValue / 100 != y.touch.y.rawValue / 100 {
        return false
      }
      if x.touch.force.rawValue / 10 != y.touch.force.rawValue / 10 { return false }
    }
    return true
  }

  /// The process's resident memory, KiB (`/proc/self/statm`).
  static func resident_kib() -> Int {
    guard let bytes = try? InputFile.read("/proc/self/statm", limit: InputFile.SizeLimit(bytes: 256, kind: "statm")) else { return 0 }
    let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
    guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
  }
}

/// Touches for the soak, scripted in blocks of 30 s drawn from the seed:
/// light taps, presses to peek, presses through pop, slides, one at a
/// time, anywhere on the panel away from its edges, each clear of the
/// stage thresholds (an average touch 0.8 N, peek 1.06 N, pop 4.0 N on the
/// plate), so that a fault, not a hair's breadth, makes a difference. Both panels get each block before their
/// clocks reach it.
struct TouchScript {
  let width: Double
  let height: Double
  let seed: UInt64
  static let block_s = 30.0
  var installed = -1

  init(board: Board, seed: UInt64) {
    width = board.width_mm
    height = board.height_mm
    self.seed = seed
  }

  /// The script's time (s) at frame time `t_us` of `panel`.
  static func time(_ t_us: Int64, _ panel: SimulatedHardware) -> Double {
    Double(t_us * 1000 - panel.signals.origin_ns) / 1e9
  }

  /// Whether a scripted finger presses `panel` at frame time `t_us`.
  func fingerDown(at t_us: Int64, _ panel: SimulatedHardware) -> Bool {
    let t = Self.time(t_us, panel)
    return panel.signals.physics.scenario.touches.contains { ($0.state(at: t)?.force ?? 0) > 0 }
  }

  /// Installs the current and the next block when `t` nears the next.
  mutating func install(at t_us: Int64, into panels: [SimulatedHardware]) {
    let t = Self.time(t_us, panels[0])
    let block = Int((t + 5) / Self.block_s)
    guard block > installed else { return }
    installed = block
    let touches = touches(block: block - 1) + touches(block: block)
    for hw in panels { hw.signals.physics.scenario.touches = touches }
  }

  func touches(block: Int) -> [ScriptedTouch] {
    guard block >= 0 else { return [] }
    var r = SimRandom(seed: seed &* 0x9E37_79B9 &+ UInt64(block))
    var list: [ScriptedTouch] = []
    let start = Double(block) * Self.block_s
    var t = start + 0.5 + r.uniform()
    while t < start + Self.block_s - 3 {
      let x = 15 + r.uniform() * (width - 30)
      let y = 15 + r.uniform() * (height - 30)
      let touch: ScriptedTouch
      switch r.next() % 4 {
      case 0:  // a light tap
        touch = ScriptedTouch(start_s: t, x_mm: x, y_mm: y, force_n: 0.3 + 0.3 * r.uniform(), hold_s: 0.05 + 0.1 * r.uniform())
      case 1:  // a press to peek
        touch = ScriptedTouch(
          start_s: t, x_mm: x, y_mm: y, force_n: 1.6 + 1.4 * r.uniform(), hold_s: 0.3 + 1.2 * r.uniform(), rise_s: 0.15,
          fall_s: 0.1)
      case 2:  // a press through pop
        touch = ScriptedTouch(
          start_s: t, x_mm: x, y_mm: y, force_n: 4.8 + 0.4 * r.uniform(), hold_s: 0.3 + 0.7 * r.uniform(), rise_s: 0.2,
          fall_s: 0.1)
      default:  // a slide
        let hold = 0.4 + r.uniform()
        let f = 0.4 + 0.3 * r.uniform()
        let force = [Keyframe(0, 0), Keyframe(0.05, f), Keyframe(0.05 + hold, f), Keyframe(0.1 + hold, 0)]
        let to = (15 + r.uniform() * (width - 30), 15 + r.uniform() * (height - 30))
        touch = ScriptedTouch(
          start_s: t, force: force, x: [Keyframe(0, x), Keyframe(hold + 0.1, to.0)], y: [Keyframe(0, y), Keyframe(hold + 0.1, to.1)])
      }
      list.append(touch)
      t = touch.end_s + 0.3 + 1.2 * r.uniform()
    }
    return list
  }
}

/// Times of the run when no fault was under watch (with its settling).
struct QuietTime {
  /// The recent faults' spans, oldest first (a few are enough: presses are
  /// compared within seconds of their end).
  var faults: [(from: Int64, to: Int64)] = []

  mutating func fault(from: Int64, to: Int64) {
    faults.append((from, to))
    if faults.count > 8 { faults.removeFirst() }
  }

  func contains(_ from: Int64, _ to: Int64) -> Bool {
    !faults.contains { $0.from <= to && from <= $0.to }
  }
}

/// A panel's presses: from a frame with touches after one without, to the
/// next frame without; the highest stage reached.
struct Presses {
  struct Press {
    var start_us: Int64
    var end_us: Int64
    var stage: Stage
  }
  var done: [Press] = []
  var current: Press?

  mutating func observe<F: FrontEnd>(_ loop: ScanLoop<F>) {
    let t = loop.reportTime.rawValue
    let n = loop.report.touchCount
    if n > 0 {
      var p = current ?? Press(start_us: t, end_us: t, stage: .none)
      for i in 0..<n { p.stage = max(p.stage, loop.report[touch: i].stage) }
      p.end_us = t
      current = p
    } else if let p = current {
      done.append(p)
      current = nil
    }
  }

  var oldest: Press? { done.first }
  mutating func dropOldest() { done.removeFirst() }
  mutating func forget(before t: Int64) { done.removeAll { $0.end_us < t } }

  enum Match: Equatable {
    case same, none
    /// The same touch; the highest stage it reached here.
    case otherStage(Stage)
  }

  /// Whether a press of this panel began and ended within `tolerance` of
  /// `other`'s (the same touch), and reached the same stage.
  func match(_ other: Press, within tolerance: Int64) -> Match {
    let all = done + (current.map { [$0] } ?? [])
    let touch = all.filter { abs($0.start_us - other.start_us) <= tolerance && abs($0.end_us - other.end_us) <= tolerance }
    if touch.isEmpty { return .none }
    if touch.contains(where: { $0.stage == other.stage }) { return .same }
    return .otherStage(touch.map(\.stage).max()!)
  }
}
