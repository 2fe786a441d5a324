/// One cell's baseline: the count the cell would read with no load, at the
/// calibration's reference temperature (the temperature's zero shift is
/// added on top, so temperature changes are absorbed even while frozen).
///
/// Tracking follows touch controllers (QTouch, CapSense, CapTIvate):
/// - untouched, the baseline follows the cell's recent mean (its last 8
///   frames) slowly, and faster down where that mean is clearly (one
///   noise) below it (both first-order, 2^-shift per frame), so
///   temperature and creep are followed but a press is not absorbed, and
///   noise leaves no bias. It moves once every `BaselineRules.period`
///   frames, by what that many frames would have moved it (the cell's
///   *tick*; `ForcePipeline` staggers the cells' ticks): the same
///   first-order follow, and no work in the frames between;
/// - a recent mean below minus the re-seed level (a run of frames there)
///   moves the baseline at once, to that mean (the panel was seeded or
///   parked with a load on it);
/// - while touched nothing drifts, and for a hold after release only a
///   cell that reads within its noise or wander (`ForcePipeline.track`);
///   a contact's onset undoes the drift of the last 50-100 ms (`rollBack`).
///
/// How fast "slowly" is, each cell measures: a few candidate baselines
/// follow the same untouched frames at the board's rate and at 4 and 16
/// times it, each scored by how far it was from the next sample (mean
/// absolute prediction error), and the best-scoring one is the baseline.
/// A cell with white noise only keeps the board's rate (a faster baseline
/// only adds its own noise); a cell that wanders takes the rate at which
/// following the wander costs less than the noise it lets in — the
/// Kalman trade-off, measured instead of modelled.
///
/// Unlike capacitive controllers there is no band above which upward drift
/// stops: a force panel's thermal drift can outrun any such band, and a
/// force held below the touch threshold for seconds is drift, not a touch.
public struct Baseline: Sendable {
  // Fields in order of alignment, 64-bit first: no padding (64 bytes).
  /// The baseline at the reference temperature, Q47.16 counts: the chosen
  /// candidate's.
  public var level: Counts_Q16
  /// Ticks in a row whose recent mean was below minus the re-seed level.
  var negativeTicks: Int32 = 0
  /// Candidate `j` follows at 4^j times the board's rate; its level is
  /// `level + offsets[j]` (Q16 counts), so moving `level` moves them all.
  /// 32 bits (within 32 768 counts of the chosen one, saturated).
  var offsets: CandidateArray<Int32> = CandidateArray(repeating: 0)
  /// Each candidate's mean absolute prediction error, Q16 counts.
  var errors: CandidateArray<Int32> = CandidateArray(repeating: 0)
  /// `level` as it was one and two snapshot periods ago, Q8 counts (to
  /// 1/256 count): what a contact's onset rolls the drift back to.
  var recent: Int32 = 0
  var earlier: Int32 = 0
  /// Periods the candidates have been scored on (saturates; scores average
  /// over at most 2^15 periods, `BaselineRules.scoreShift`).
  var scored: UInt16 = 0
  /// The candidate `level` is (its offset is 0).
  public internal(set) var chosen: UInt8 = 0

  public init(level: Counts_Q16 = Counts_Q16(rawValue: 0)) {
    self.level = level
    recent = Baseline.snapshotValue(level.rawValue)
    earlier = recent
  }

  /// A level (Q16 counts) as a snapshot (Q8 counts, saturated).
  @inline(__always)
  static func snapshotValue(_ level: Int64) -> Int32 { Saturating.int32(level &>> 8) }

  /// Puts every candidate at `level` (seeded, or a load absorbed); their
  /// scores stay.
  public mutating func reset(to level: Counts_Q16) {
    self.level = level
    recent = Baseline.snapshotValue(level.rawValue)
    earlier = recent
    for j in 0..<BaselineRules.maxCandidates { offsets[j] = 0 }
    negativeTicks = 0
  }

  /// Moves the baseline at once by `counts` (Q16), its snapshots with it:
  /// a re-seed is not drift, and no onset undoes it.
  @inline(__always)
  public mutating func move(by counts: Int64) {
    level.rawValue &+= counts
    recent = Baseline.snapshotValue((Int64(recent) &<< 8) &+ counts)
    earlier = Baseline.snapshotValue((Int64(earlier) &<< 8) &+ counts)
    negativeTicks = 0
  }

  /// Whether `delta` (Q16 counts) is within three deviations of what the
  /// board's slow rate misses (its candidate's score): the wander a cell
  /// is followed through even when a faster rate has taken its measured
  /// noise down to the white part.
  @inline(__always)
  func withinWander(_ delta: Int64, rules: BaselineRules) -> Bool {
    guard rules.candidates > 1 else { return false }
    // 3 deviations = 3 sqrt(pi/2) = 3.76 mean absolute errors.
    let band = (Int64(errors[0]) &* 15) &>> 2
    return delta <= band && delta >= 0 &- band
  }

  /// Takes a snapshot (every snapshot period).
  @inline(__always)
  mutating func snapshot() {
    earlier = recent
    recent = Baseline.snapshotValue(level.rawValue)
  }

  /// A contact starts holding the cell: the drift of the last one to two
  /// snapshot periods is undone. The contact's rising edge was below the
  /// touch threshold then, and the baseline followed part of it (at a
  /// wandering cell's fast rate, a few mN on every press).
  @inline(__always)
  mutating func rollBack() {
    level.rawValue = Int64(earlier) &<< 8
    recent = earlier
    negativeTicks = 0
  }
}

/// One value per candidate rate (`BaselineRules.maxCandidates`).
public typealias CandidateArray<Element> = InlineArray<3, Element>

/// The baseline rules in frame units, derived from `CoreConfiguration`.
public struct BaselineRules: Sendable {
  /// Frames between a cell's ticks: its baseline moves by what as many
  /// frames would have moved it, its candidates are scored, its noise is
  /// measured. (A tick is all of a cell's work beyond its conversion; the
  /// cells' ticks are staggered, so a frame does an eighth of them.)
  public static let period = 8
  /// log2 of `period`: an average over the ticks takes this much less
  /// shift than one over the frames for the same time constant.
  public static let periodShift = 3
  /// Most candidate rates a cell compares (the board's and up to 16 times it).
  public static let maxCandidates = CandidateArray<Int64>.count
  public var upShift: Int
  public var downShift: Int
  public var reseedLevel: Int32
  public var reseedFrames: Int32
  /// Ticks in a row a recent mean must stay below minus the re-seed level
  /// (`reseedFrames` in ticks, at least one).
  public var reseedTicks: Int32
  /// Candidate rates: the board's `upShift` and faster ones, down to
  /// `driftMin_ms`.
  public var candidates: Int
  /// The prediction errors' average (2^-scoreShift per tick: four noise
  /// windows, so that candidates a few tenths of a percent apart are told
  /// apart) ...
  public var scoreShift: Int
  /// ... and how many ticks are scored before the first change of rate
  /// (a quarter of a noise window: until four windows have passed the
  /// scores are running means of every tick so far).
  public var scoreFrames: UInt16

  public init(_ c: CoreConfiguration) {
    upShift = BaselineRules.shift(frames: c.frames(c.driftUp_ms))
    downShift = BaselineRules.shift(frames: c.frames(c.driftDown_ms))
    reseedLevel = c.reseedLevel.rawValue
    reseedFrames = Int32(max(1, c.reseedFrames))
    reseedTicks = Int32(max(1, c.reseedFrames / BaselineRules.period))
    let fastest = BaselineRules.shift(frames: c.frames(c.driftMin_ms))
    candidates = min(BaselineRules.maxCandidates, max(1, (upShift - fastest) / 2 + 1))
    // Scored once a tick (`period` frames): four noise windows are
    // 2^(window + 2 - periodShift) ticks, a quarter of one
    // 2^(window - 2 - periodShift). (At most 2^15 ticks, what
    // `Baseline.scored` counts.)
    let window = BaselineRules.shift(frames: c.frames(c.noiseWindow_ms))
    scoreShift = min(15, max(1, window + 2 - BaselineRules.periodShift))
    scoreFrames = UInt16(1) << UInt16(min(15, max(0, window - 2 - BaselineRules.periodShift)))
  }

  /// The shift whose first-order time constant is closest to `frames`.
  static func shift(frames: Int) -> Int {
    var s = 0
    while s < 30 && (1 << (s + 1)) <= frames + (frames >> 1) { s += 1 }
    return s
  }

  /// Candidate `j`'s shift: the board's rate times 4^j (a factor of two
  /// from the best rate costs about an eighth more baseline error, and
  /// each candidate costs every untouched cell its work once a tick),
  /// and never slower than the fast downward rate while `falling`.
  @inline(__always)
  func shift(_ j: Int, falling: Bool) -> Int {
    let s = max(upShift &- 2 &* j, 0)
    return falling ? min(s, downShift) : s
  }
}

extension Baseline {
  /// The cell's tick (every `BaselineRules.period` frames) while it is not
  /// held: `mean` is the delta of its recent mean (8 frames, Q16 counts)
  /// from `level`, and `meanForce` its force; `reseedLevel` (mN Q10) is
  /// this cell's (the board's, or its noise's multiple if larger), Int32.max
  /// where the cell is never re-seeded alone (a plate's). Returns true when
  /// the baseline was re-seeded.
  ///
  /// A mean far below the baseline for `reseedTicks` ticks moves it there
  /// at once (one noisy sample would leave its noise in the baseline; a
  /// sample that slipped past the spike filter does not move the mean far).
  /// Otherwise, where the cell drifts, the level moves by what `period`
  /// frames at its rate would have moved it toward the mean: the chosen
  /// candidate's rate when the mean is within the cell's noise (`quiet`),
  /// the board's otherwise, and the fast downward rate when `falling`; the
  /// other candidates follow a quiet mean at their rates and keep their
  /// place as the level moves. When this frame's unfiltered sample is
  /// quiet (`raw`, its delta from `level`, non-nil) every candidate is
  /// first scored on it, and the cell changes to a candidate whose score
  /// is better by more than 1/512. (On white noise the board's rate scores
  /// better than 16 times it by about 1/256, and the scores' own spread
  /// over four noise windows is about 1/800: a cell whose seeding error
  /// made a fast rate look better comes back.) Scored on the unfiltered
  /// sample: its noise is independent of every earlier sample's (the
  /// median filter's outputs are not, and would favour the fastest rate on
  /// white noise). A mean beyond the cell's noise (a finger's edge or
  /// tail, a light load) is followed at the board's rate only and scores
  /// nothing: the faster rates are for what looks like the cell's own
  /// wander. Deltas are bounded by the 24-bit counts (Q16): no overflow.
  @inline(__always)
  mutating func tick(
    mean: Int64, meanForce: Force_mN, quiet: Bool, drift: Bool, raw: Int64?, falling: Bool,
    rules: inout BaselineRules, reseedLevel: Int32
  ) -> Bool {
    if meanForce.rawValue < 0 &- reseedLevel {
      negativeTicks &+= 1
      guard negativeTicks >= rules.reseedTicks else { return false }
      move(by: mean)
      return true
    }
    negativeTicks = 0
    guard drift else { return false }
    // What `period` frames at 2^-shift each would move it (to first
    // order); a loud mean at the board's rate, every candidate with it.
    let c = Int(chosen)
    let steps = mean &<< Int64(BaselineRules.periodShift)
    let move = Shift64.right(steps, rules.shift(quiet ? c : 0, falling: falling))
    level.rawValue &+= move
    let count = min(rules.candidates, BaselineRules.maxCandidates)
    guard quiet && count > 1 else { return false }
    var best = c
    if let raw {
      // Every candidate scored as it stood before this tick.
      if scored < UInt16.max { scored &+= 1 }
      // A running mean over the first ticks, then the score window's average.
      let s = min(rules.scoreShift, 15 &- scored.leadingZeroBitCount)
      for j in 0..<count {
        let rj = raw &- (j == c ? 0 : Int64(offsets[j]))
        let miss = rj < 0 ? 0 &- rj : rj
        // A sample far beyond the score (a press building up) counts as 8 of it.
        let score = errors[j]
        if UInt32(bitPattern: score) < 1 << 27 {
          // The ceiling, the miss and the new score (between the old one
          // and the miss) all fit 32 bits: the same values in 32-bit
          // operations (`s` is 0...15).
          let ceiling = (score &* 8) &+ (16 << 16)
          let m = miss > Int64(ceiling) ? ceiling : Int32(truncatingIfNeeded: miss)
          errors[j] = score &+ ((m &- score) &>> Int32(truncatingIfNeeded: s))
        } else {
          let wide = Int64(score)
          let ceiling = (wide &* 8) &+ (16 << 16)
          errors[j] = Saturating.int32(wide &+ Shift64.right(min(miss, ceiling) &- wide, s))
        }
      }
    }
    // The others follow the mean at their own rates, and keep their place
    // as `level` moves.
    for j in 0..<count where j != c {
      let offset = Int64(offsets[j])
      let pull = Shift64.right((mean &- offset) &<< Int64(BaselineRules.periodShift), rules.shift(j, falling: falling))
      offsets[j] = Saturating.int32(offset &+ pull &- move)
      if errors[j] < errors[best] { best = j }
    }
    let current = errors[c]
    guard raw != nil, best != c, scored >= rules.scoreFrames, errors[best] < current &- (current &>> 9) else {
      return false
    }
    let moved = offsets[best]
    level.rawValue &+= Int64(moved)
    shiftOffsets(by: Int64(moved))
    chosen = UInt8(truncatingIfNeeded: best)
    return false
  }

  /// The candidates' offsets after `level` moved by `counts` while they
  /// did not (Q16 counts, saturated).
  @inline(__always)
  mutating func shiftOffsets(by counts: Int64) {
    for j in 0..<BaselineRules.maxCandidates { offsets[j] = Saturating.int32(Int64(offsets[j]) &- counts) }
  }

  /// A held cell: its re-seed run restarts.
  @inline(__always)
  public mutating func freeze() {
    negativeTicks = 0
  }
}
