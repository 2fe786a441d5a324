import ForceCore

/// How contacts become touches.
public struct TrackerSettings: Sendable {
  /// A new touch needs contacts at or above this force ...
  public var touchOn: Force_mN
  /// ... for this many consecutive frames (debounce).
  public var debounce: Int
  /// A touch ends after this many consecutive frames at or below `touchOff`
  /// or without a contact.
  public var touchOff: Force_mN
  public var releaseFrames: Int
  /// Largest distance a touch may move between frames and keep its id.
  public var gate: Length_um
  /// Movement below this since the last `moved` reports `stationary`.
  public var moveThreshold: Length_um
  /// The touch thresholds against the noise: a contact's `snr_Q8` at or
  /// above `noiseOn` starts (and confirms) a touch, at or below
  /// `noiseOff` counts toward its release (Q8 standard deviations).
  public var noiseOn_Q8: Int32
  public var noiseOff_Q8: Int32
  /// The spread a smoothed position is brought down to (its exponential
  /// average follows a contact whose position is noisier more slowly).
  public var positionTarget: Length_um
  /// Most simultaneous touches.
  public var maxTouches: Int
  /// Consecutive invalid frames after which every touch is cancelled.
  public var invalidLimit: Int

  public init(
    touchOn: Force_mN, debounce: Int, touchOff: Force_mN, releaseFrames: Int, gate: Length_um,
    moveThreshold: Length_um, noiseOn_Q8: Int32, noiseOff_Q8: Int32, positionTarget: Length_um, maxTouches: Int,
    invalidLimit: Int
  ) {
    self.touchOn = touchOn
    self.debounce = debounce
    self.touchOff = touchOff
    self.releaseFrames = releaseFrames
    self.gate = gate
    self.moveThreshold = moveThreshold
    self.noiseOn_Q8 = noiseOn_Q8
    self.noiseOff_Q8 = noiseOff_Q8
    self.positionTarget = positionTarget
    self.maxTouches = maxTouches
    self.invalidLimit = invalidLimit
  }
}

/// One touch as reported for a frame.
public struct TrackedTouch: Sendable, Equatable {
  public var id: UInt32
  public var phase: TouchPhase
  public var x: Length_um
  public var y: Length_um
  public var force: Force_mN
  /// For `cancelled`: why.
  public var reason: CancelReason
  /// For a touch cancelled as `merged`: the touch its contact merged into.
  public var mergedInto: UInt32
  /// The spread of the reported (smoothed) position from the panel's
  /// noise, one standard deviation: movement within a few of these is not
  /// movement.
  public var positionNoise: Length_um
  public init(
    id: UInt32, phase: TouchPhase, x: Length_um, y: Length_um, force: Force_mN, reason: CancelReason = .none,
    mergedInto: UInt32 = 0, positionNoise: Length_um = .zero
  ) {
    self.positionNoise = positionNoise
    self.id = id
    self.phase = phase
    self.x = x
    self.y = y
    self.force = force
    self.reason = reason
    self.mergedInto = mergedInto
  }
  static let none = TrackedTouch(id: 0, phase: .ended, x: .zero, y: .zero, force: .zero)
}

/// Turns each frame's contacts into touches with stable ids and UITouch
/// phases: nearest-neighbour association within a gate (greedy, closest
/// pair first), debounce before `began`, hysteresis and a release count
/// before `ended`, `cancelled` when the core absorbs a parked load or the
/// front end stays invalid. Ids grow from 1 and are never reused while a
/// touch is active. Allocation-free.
///
/// A finger that did not lift is never `ended`. When a touch loses its
/// contact while still pressing (its last force above `touchOff`) and
/// another touch's contact lies within the gate of where it was, the two
/// contacts have merged (fingers closer than the panel separates them):
/// the touch is `cancelled` with reason `merged`, naming the touch that
/// now carries both. When the fingers part again, the one that comes out
/// of the merged contact is a new touch.
///
/// Its fixed-capacity arrays are only read in place, from mutating methods
/// (a non-mutating read of a large `InlineArray` copies all of it first);
/// docs/performance.md has the disassembly check.
public struct Tracker: Sendable {
  public let settings: TrackerSettings
  /// This frame's touches, in id order (active ones, and those that just ended).
  public private(set) var count = 0
  /// Touches currently active (began and not yet ended).
  public private(set) var activeCount = 0
  @usableFromInline var reported: TouchArray<TrackedTouch> = TouchArray(repeating: .none)
  var tracks: TouchArray<Track> = TouchArray(repeating: Track())
  var trackCount = 0
  var nextID: UInt32 = 1
  var invalidRun = 0
  /// Where touches ended in the last `Tracker.settleFrames` frames, and
  /// how many frames ago: a contact that comes back there at once (a
  /// releasing finger's peak flickering in another's spread) is debounced
  /// in full, not started on one strong frame.
  var ended: InlineArray<4, (x: Int32, y: Int32, age: Int32)> = InlineArray(repeating: (0, 0, Int32.max))
  static let settleFrames: Int32 = 8

  public init(settings: TrackerSettings) { self.settings = settings }

  /// The `index`-th touch of this frame (`index < count`).
  /// Inlinable, so that the scan loop (another module) reads it in place:
  /// an out-of-line `_read` coroutine called across modules allocates its
  /// frame when it does not fit the caller's buffer.
  #if hasFeature(Embedded)
    @inlinable public subscript(index: Int) -> TrackedTouch { reported[index] }  // no coroutines with -no-allocations
  #else
    @inlinable public subscript(index: Int) -> TrackedTouch { _read { yield reported[index] } }
  #endif

  struct Track: Sendable {
    var active = false
    var id: UInt32 = 0
    var x: Int32 = 0
    var y: Int32 = 0
    var force = Force_mN.zero
    var refX: Int32 = 0
    var refY: Int32 = 0
    var run = 0
    var matched = -1
    /// Whether its last contact was firm: as strong as one that starts a
    /// touch in one frame, and still so `settleFrames` on at its force's
    /// trend (its change per frame, mN raw, averaged over about eight
    /// frames): a finger that is lifting is not firm.
    var firm = false
    var trend: Int32 = 0
    var phase = TouchPhase.began
    var reason = CancelReason.none
    var mergedInto: UInt32 = 0
    /// The smoothed position's spread, um, and its variance, um^2.
    var noise: Int32 = 0
    var variance: Int64 = 0
    /// The smoothed position's velocity (um per frame, Q8) and where it is
    /// predicted in the next frame (um; constant velocity).
    var vx: Int32 = 0
    var vy: Int32 = 0
    var px: Int32 = 0
    var py: Int32 = 0
    /// While its finger's force is in another touch's contact (`partner`,
    /// an id; 0: none): the force that contact must keep carrying (the
    /// partner's and half of this one's when they met, mN raw), this
    /// touch's share of it (Q16), and its position less the partner's when
    /// they met (um).
    var partner: UInt32 = 0
    var need: Int64 = 0
    var share: Int64 = 0
    var apartX: Int32 = 0
    var apartY: Int32 = 0
    /// This frame: the track whose contact it shares (-1: none); for the
    /// partner, its offset from that contact (um) and share (Q16).
    var sharing = -1
    var offsetX: Int32 = 0
    var offsetY: Int32 = 0
    var keep: Int64 = 65_536

    var report: TrackedTouch {
      TrackedTouch(
        id: id, phase: phase, x: Length_um(rawValue: x), y: Length_um(rawValue: y), force: force, reason: reason,
        mergedInto: mergedInto, positionNoise: Length_um(rawValue: noise))
    }
  }

  /// Feeds one frame of the core. `contacts` is taken as a copy the
  /// tracker reads in place (a borrowed list would be copied per element).
  public mutating func update(contacts: consuming ContactList, outcome: FrameOutcome, loadAbsorbed: Bool) {
    count = 0
    if loadAbsorbed {
      cancelAll(reason: .loadAbsorbed)
      return
    }
    switch outcome {
    case .seeding:
      return
    case .invalid:
      invalidRun += 1
      if invalidRun >= settings.invalidLimit { cancelAll(reason: .frontEnd) }
      return
    case .measured:
      invalidRun = 0
    }
    for e in 0..<ended.count where ended[e].age < Int32.max { ended[e].age += 1 }
    let claimed = associate(&contacts)
    shareMerged(&contacts)
    startCandidates(&contacts, except: claimed)
    for i in 0..<trackCount { advance(i, &contacts) }
    emit()
  }

  /// Unmatched contacts strong enough start candidates.
  mutating func startCandidates(_ contacts: inout ContactList, except claimed: UInt32) {
    for c in 0..<contacts.count where claimed & (1 << c) == 0 && trackCount < Capacity.contacts {
      let contact = contacts[c]
      guard starts(contact) else { continue }
      var t = Track()
      t.x = contact.x.rawValue
      t.y = contact.y.rawValue
      t.px = t.x
      t.py = t.y
      t.force = contact.force
      t.matched = c
      tracks[trackCount] = t
      trackCount += 1
    }
  }

  /// Whether a contact is strong enough to start (and confirm) a touch:
  /// at or above the touch-on force and `noiseOn` standard deviations.
  @inline(__always)
  func starts(_ contact: Contact) -> Bool {
    contact.force >= settings.touchOn && contact.snr_Q8 >= settings.noiseOn_Q8
  }

  /// Whether a contact is strong enough to start a touch in one frame: at
  /// least 1.5 times the touch-on force and `noiseOn` (6.75 deviations of
  /// Gaussian noise: about once in 10^11 frames; a spike does not get
  /// here: the core's median and step hold-off have removed it).
  @inline(__always)
  mutating func sure(_ contact: Contact) -> Bool {
    2 * Int64(contact.force.rawValue) >= 3 * Int64(settings.touchOn.rawValue)
      && 2 * Int64(contact.snr_Q8) >= 3 * Int64(settings.noiseOn_Q8)
  }

  /// Greedy nearest-pair matching of tracks to contacts within the gate,
  /// from each track's predicted position (constant velocity); the gate
  /// widens by three of the contact's position spreads (a noisy contact
  /// lands farther from its finger). Returns the contacts claimed, one bit
  /// each.
  mutating func associate(_ contacts: inout ContactList) -> UInt32 {
    var claimed: UInt32 = 0
    for i in 0..<trackCount { tracks[i].matched = -1 }
    let gate = Int64(settings.gate.rawValue)
    let n = contacts.count
    while true {
      var best: Int64 = Int64.max
      var bi = -1
      var bc = -1
      for i in 0..<trackCount where tracks[i].matched < 0 {
        let x = Int64(tracks[i].px)
        let y = Int64(tracks[i].py)
        // Active touches win ties over candidates; a touch sharing its
        // partner's contact comes after every other (the partner keeps
        // the contact it has, the sharer takes one of its own when the
        // core separates them again).
        let candidate: Int64 = (tracks[i].active ? 0 : 1) + (tracks[i].partner != 0 ? 1_099_511_627_776 : 0)  // 2^40
        for c in 0..<n where claimed & (1 << c) == 0 {
          let contact = contacts[c]
          let dx = Int64(contact.x.rawValue) - x
          let dy = Int64(contact.y.rawValue) - y
          let d = dx * dx + dy * dy
          let g = gate + 3 * min(Int64(max(contact.positionNoise.rawValue, 0)), gate)
          let rank = d * 2 + candidate
          if d <= g * g && rank < best {
            best = rank
            bi = i
            bc = c
          }
        }
      }
      if bi < 0 { return claimed }
      tracks[bi].matched = bc
      claimed |= 1 << bc
    }
  }

  /// Two fingers whose contacts became one: an active touch that lost its
  /// contact while pressing shares the contact of the active touch nearest
  /// its predicted position (within the gate) as long as that contact
  /// carries its force too: at least the partner's force and half of this
  /// one's when they met (a finger that lifts takes its force with it, so
  /// a lift next to another finger is not a merge). Both are then reported
  /// where the contact's centre of force puts them, apart as when they met
  /// (or as far as the core's joint fit put them, for a `merged` contact),
  /// each with its share of the force; when the core separates them again
  /// each takes its own contact back by its predicted position, with its
  /// id. A partner carries one such touch.
  mutating func shareMerged(_ contacts: inout ContactList) {
    for i in 0..<trackCount {
      tracks[i].sharing = -1
      tracks[i].offsetX = 0
      tracks[i].offsetY = 0
      tracks[i].keep = 65_536
    }
    let gate = Int64(settings.gate.rawValue)
    // (No `&&` or `||` over the tracks: their autoclosure reads a copy of
    // them all.)
    for i in 0..<trackCount {
      if !tracks[i].active { continue }
      if tracks[i].matched >= 0 { continue }
      let px = Int64(tracks[i].px)
      let py = Int64(tracks[i].py)
      var best = gate * gate
      var bj = -1
      let partner = tracks[i].partner
      for j in 0..<trackCount {
        if j == i { continue }
        if !tracks[j].active { continue }
        if tracks[j].matched < 0 { continue }
        // Its partner of the last frame, or the nearest free contact.
        if partner != 0 {
          if tracks[j].id != partner { continue }
        }
        if tracks[j].keep != 65_536 { continue }
        let contact = contacts[tracks[j].matched]
        let dx = Int64(contact.x.rawValue) - px
        let dy = Int64(contact.y.rawValue) - py
        let d = dx * dx + dy * dy
        if d <= best {
          best = d
          bj = j
        }
      }
      guard bj >= 0 else {
        tracks[i].partner = 0
        continue
      }
      let contact = contacts[tracks[bj].matched]
      if tracks[i].partner == 0 {
        // They meet: the partner's force and this one's, last frame (a
        // finger that was lifting is not taken for one merging).
        guard tracks[i].firm else { continue }
        let mine = Int64(tracks[i].force.rawValue)
        let theirs = Int64(max(tracks[bj].force.rawValue, 0))
        tracks[i].need = theirs + mine / 2
        tracks[i].share = (mine &<< 16) / max(mine + theirs, 1)
        tracks[i].apartX = tracks[i].x &- tracks[bj].x
        tracks[i].apartY = tracks[i].y &- tracks[bj].y
      }
      guard Int64(contact.force.rawValue) >= tracks[i].need else {
        tracks[i].partner = 0
        continue
      }
      tracks[i].partner = tracks[bj].id
      tracks[i].sharing = bj
      // Their distance: as when they met, or the core's joint fit's.
      var ax = Int64(tracks[i].apartX)
      var ay = Int64(tracks[i].apartY)
      if contact.merged {
        let length = max(FixedMath.squareRoot(ax * ax + ay * ay), 1)
        let fitted = 2 * Int64(contact.spread.rawValue)
        ax = ax * fitted / length
        ay = ay * fitted / length
      }
      // The contact is at their centre of force: each is its partner's
      // share of the distance away from it.
      let share = tracks[i].share
      tracks[i].offsetX = Int32(truncatingIfNeeded: (ax * (65_536 - share)) &>> 16)
      tracks[i].offsetY = Int32(truncatingIfNeeded: (ay * (65_536 - share)) &>> 16)
      tracks[i].keep = share
      tracks[bj].offsetX = Int32(truncatingIfNeeded: -((ax * share) &>> 16))
      tracks[bj].offsetY = Int32(truncatingIfNeeded: -((ay * share) &>> 16))
      tracks[bj].keep = 65_536 - share
    }
  }

  /// Moves one track forward by a frame.
  mutating func advance(_ i: Int, _ contacts: inout ContactList) {
    var t = tracks[i]
    defer { tracks[i] = t }
    let c = t.matched
    let contact = c >= 0 ? contacts[c] : .none
    if !t.active {
      // Candidate: needs `debounce` strong frames in a row, or one sure
      // one.
      guard c >= 0, starts(contact) else {
        t.run = -1  // dropped below
        return
      }
      t.x = contact.x.rawValue
      t.y = contact.y.rawValue
      t.px = t.x
      t.py = t.y
      t.force = contact.force
      t.run += 1
      let sure = sure(contact) && !justEnded(near: t.x, t.y)
      if (t.run >= settings.debounce || sure) && activeCount < settings.maxTouches {
        t.active = true
        activeCount += 1
        t.id = nextID
        nextID = nextID == UInt32.max ? 1 : nextID + 1
        t.phase = .began
        t.refX = t.x
        t.refY = t.y
        t.noise = contact.positionNoise.rawValue
        t.variance = Int64(t.noise) * Int64(t.noise)
        t.firm = self.sure(contact)
        t.run = 0
      }
      return
    }
    // Its own contact, or its share of a partner's.
    // (A statement, not a conditional expression: the expression read a
    // copy of every track, 2.8 kB, on the Cortex-M4.)
    var source = c
    if c < 0 && t.sharing >= 0 { source = tracks[t.sharing].matched }
    if source >= 0 {
      var seen = contacts[source]
      seen.x = Length_um(rawValue: seen.x.rawValue &+ t.offsetX)
      seen.y = Length_um(rawValue: seen.y.rawValue &+ t.offsetY)
      seen.force = Force_mN(rawValue: Int32(truncatingIfNeeded: (Int64(seen.force.rawValue) * t.keep) &>> 16))
      if c >= 0 {
        // Its force's trend: the change per frame, averaged over about
        // eight frames.
        t.trend &+= ((seen.force.rawValue &- t.force.rawValue) &- t.trend) &>> 3
      }
      // Smooth the position as much as its noise needs: a light contact's
      // position is noisy (its noise grows as 1/F). A finger that is
      // lifting (its trend would take a quarter of its force within
      // `settleFrames`) lifts where it is: its fading contact is pulled
      // toward any neighbour's and by the noise, so the position is held.
      var (weight, variance, spread) = smoothing(seen.positionNoise.rawValue, variance: t.variance)
      if 4 * Int64(t.trend) * Int64(Tracker.settleFrames) < -Int64(max(t.force.rawValue, 0)) {
        weight = 0
        variance = t.variance
        spread = t.noise
      }
      let x = Int32(Int64(t.x) + (((Int64(seen.x.rawValue) - Int64(t.x)) * weight) &>> 8))
      let y = Int32(Int64(t.y) + (((Int64(seen.y.rawValue) - Int64(t.y)) * weight) &>> 8))
      // Its velocity: the smoothed position's steps, averaged over about
      // eight frames.
      t.vx &+= (((x &- t.x) &<< 8) &- t.vx) &>> 3
      t.vy &+= (((y &- t.y) &<< 8) &- t.vy) &>> 3
      t.x = x
      t.y = y
      t.px = x &+ (t.vx &>> 8)
      t.py = y &+ (t.vy &>> 8)
      t.noise = spread
      t.variance = variance
      if c >= 0 {
        // Firm: as its own contact was, and at its trend.
        var ahead = seen
        ahead.force = Force_mN(
          rawValue: Saturating.int32(Int64(seen.force.rawValue) + Int64(t.trend) * Int64(Tracker.settleFrames)))
        t.firm = sure(ahead)
      }
      t.force = seen.force
      if c >= 0 {
        t.partner = 0
        let releasing = seen.force <= settings.touchOff || seen.snr_Q8 <= settings.noiseOff_Q8
        t.run = releasing ? t.run + 1 : 0
      } else if seen.merged {
        // The core says two presses are there: it stays.
        t.run = 0
      } else {
        // One press to the core: the fingers have merged.
        t.run += 1
      }
    } else {
      t.px &+= t.vx &>> 8
      t.py &+= t.vy &>> 8
      t.run += 1
    }
    // A firm finger does not vanish within a frame: a lift fades through
    // `touch_off_n` first. A firm touch that lost its contact (the core
    // lost its peak in the noise or in a neighbour's spread, or sees one
    // press where two fingers are) keeps it for `settleFrames`, at its
    // predicted position, and takes it back when it returns. A lifting
    // one (its force falling by a sixteenth every `settleFrames`) keeps it
    // while its force, followed at its trend from the last frame it was
    // seen, would still be above `touch_off_n`, up to three times as long:
    // a lifting finger's fading peak hides in a neighbour's spread or in
    // the noise for longer before its touch-off.
    var limit = t.firm && t.run > 0 && (c < 0) ? max(settings.releaseFrames, Int(Tracker.settleFrames)) : settings.releaseFrames
    let lifting = 16 * Int64(t.trend) * Int64(Tracker.settleFrames) < -Int64(max(t.force.rawValue, 0))
    if t.firm && lifting && t.run > 0 && c < 0 && t.sharing < 0 && t.run < 3 * Int(Tracker.settleFrames) {
      let fading = Int64(t.force.rawValue) + Int64(t.trend) * Int64(t.run)
      if fading > Int64(settings.touchOff.rawValue) { limit = max(limit, t.run + 1) }
    }
    if t.run >= limit {
      if c < 0 && t.sharing >= 0 {
        t.phase = .cancelled
        t.reason = .merged
        t.mergedInto = t.partner
      } else {
        t.phase = .ended
      }
      return
    }
    let dx = Int64(t.x) - Int64(t.refX)
    let dy = Int64(t.y) - Int64(t.refY)
    // Moved: beyond the threshold and beyond two spreads of the position.
    let m = max(Int64(settings.moveThreshold.rawValue), 2 * Int64(t.noise))
    if dx * dx + dy * dy >= m * m {
      t.phase = .moved
      t.refX = t.x
      t.refY = t.y
    } else {
      t.phase = .stationary
    }
  }

  /// The smoothing of a position of spread `noise` (um) into a track
  /// whose position has `variance` (um^2): the exponential average's weight
  /// (Q8), the track's new variance, and its spread (um).
  ///
  /// The weight brings a steady contact's spread to about `positionTarget`
  /// (an average of weight w has sqrt(w / (2 - w)) of the spread; at least
  /// 1/16, 16 frames' lag), and is larger while the track is less certain
  /// than the contact (the optimal weight P / (P + R), as a Kalman filter
  /// takes it): a touch that came down light and noisy catches up with its
  /// firmer positions at once instead of dragging its first error along.
  /// The variance follows the average (white noise); the spread reported is
  /// at least half the raw one (the slow part of the noise is not averaged
  /// out).
  @inline(__always)
  mutating func smoothing(_ noise: Int32, variance p: Int64) -> (weight: Int64, variance: Int64, spread: Int32) {
    let n = min(max(Int64(noise), 0), 1_000_000)  // a metre: no panel is larger
    let r = max(n * n, 1)
    let p = min(p, 1_000_000_000_000)
    let t2 = Int64(settings.positionTarget.rawValue) * Int64(settings.positionTarget.rawValue)
    let target = min(256, max(16, 512 * t2 / max(r + t2, 1)))
    let optimal = (256 * p) / max(p + r, 1)
    let w = min(256, max(target, optimal))
    let keep = 256 - w
    let variance = (keep * keep * p + w * w * r) &>> 16
    let spread = max(FixedMath.squareRoot(variance), n / 2)
    return (w, variance, Int32(truncatingIfNeeded: spread))
  }

  /// Reports active tracks in id order and drops finished ones.
  mutating func emit() {
    count = 0
    var i = 0
    while i < trackCount {
      let t = tracks[i]
      if !t.active && t.run < 0 {
        remove(i)
        continue
      }
      if t.active { insertReport(t.report) }
      if t.active && t.phase.isFinal {
        activeCount -= 1
        if t.phase == .ended { noteEnded(t) }
        remove(i)
        continue
      }
      i += 1
    }
  }

  /// Remembers where a touch ended (in place of the oldest entry).
  mutating func noteEnded(_ t: Track) {
    var oldest = 0
    for e in 1..<ended.count where ended[e].age > ended[oldest].age { oldest = e }
    ended[oldest] = (t.x, t.y, 0)
  }

  /// Whether a touch ended within the gate of (`x`, `y`) in the last
  /// `settleFrames` frames. (Mutating, as every reader of the tracker's
  /// inline arrays: read in place.)
  mutating func justEnded(near x: Int32, _ y: Int32) -> Bool {
    let gate = Int64(settings.gate.rawValue)
    for e in 0..<ended.count where ended[e].age <= Tracker.settleFrames {
      let dx = Int64(ended[e].x) - Int64(x)
      let dy = Int64(ended[e].y) - Int64(y)
      if dx * dx + dy * dy <= gate * gate { return true }
    }
    return false
  }

  mutating func insertReport(_ touch: TrackedTouch) {
    var j = count
    reported[j] = touch
    count += 1
    while j > 0 && reported[j - 1].id > reported[j].id {
      reported.swapAt(j - 1, j)
      j -= 1
    }
  }

  mutating func remove(_ i: Int) {
    trackCount -= 1
    if i < trackCount {
      for j in i..<trackCount { tracks[j] = tracks[j + 1] }
    }
  }

  /// Ends the run in this frame: the touches of this frame's report that
  /// are still active become `cancelled` (`stream_end`; a touch that began
  /// in this very frame is left out: no host has seen it), and every track
  /// is dropped, so the report of the last frame closes every touch.
  public mutating func cancelInThisFrame() {
    var kept = 0
    for i in 0..<count {
      var t = reported[i]
      if t.phase == .began { continue }
      if !t.phase.isFinal {
        t.phase = .cancelled
        t.reason = .streamEnd
      }
      reported[kept] = t
      kept += 1
    }
    count = kept
    trackCount = 0
    activeCount = 0
  }

  /// Every active touch is cancelled (for `reason`); candidates are dropped.
  public mutating func cancelAll(reason: CancelReason = .streamEnd) {
    count = 0
    for i in 0..<trackCount where tracks[i].active {
      tracks[i].phase = .cancelled
      tracks[i].reason = reason
      insertReport(tracks[i].report)
    }
    trackCount = 0
    activeCount = 0
  }
}
