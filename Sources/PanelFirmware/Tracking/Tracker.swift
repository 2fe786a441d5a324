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
  /// Most simultaneous touches.
  public var maxTouches: Int
  /// Consecutive invalid frames after which every touch is cancelled.
  public var invalidLimit: Int

  public init(board: Board) {
    let d = board.detection
    touchOn = Force_mN(newtons: d.touchOn_n)
    touchOff = Force_mN(newtons: d.touchOff_n)
    debounce = max(1, d.debounceFrames)
    releaseFrames = max(1, d.debounceFrames)
    // A plate has one contact: it keeps its id wherever it goes.
    let diagonal = (board.width_mm * board.width_mm + board.height_mm * board.height_mm).squareRoot()
    gate = Length_um(millimetres: board.grid == nil ? diagonal + 1 : max(30, 1.5 * (board.grid?.pitch_mm ?? 20)))
    moveThreshold = Length_um(millimetres: 0.5)
    maxTouches = max(1, min(board.interaction.maxTouches, Capacity.contacts))
    invalidLimit = max(1, board.rate_hz / 10)
  }
}

/// One touch as reported for a frame.
public struct TrackedTouch: Sendable, Equatable {
  public var id: UInt32
  public var phase: TouchPhase
  public var x: Length_um
  public var y: Length_um
  public var force: Force_mN
  public init(id: UInt32, phase: TouchPhase, x: Length_um, y: Length_um, force: Force_mN) {
    self.id = id
    self.phase = phase
    self.x = x
    self.y = y
    self.force = force
  }
  static let none = TrackedTouch(id: 0, phase: .ended, x: .zero, y: .zero, force: .zero)
}

/// Turns each frame's contacts into touches with stable ids and UITouch
/// phases: nearest-neighbour association within a gate (greedy, closest
/// pair first), debounce before `began`, hysteresis and a release count
/// before `ended`, `cancelled` when the core absorbs a parked load or the
/// front end stays invalid. Ids grow from 1 and are never reused while a
/// touch is active. Allocation-free.
public struct Tracker: Sendable {
  public let settings: TrackerSettings
  /// This frame's touches, in id order (active ones, and those that just ended).
  public private(set) var count = 0
  var reported: InlineArray<16, TrackedTouch> = InlineArray(repeating: .none)
  var tracks: InlineArray<16, Track> = InlineArray(repeating: Track())
  var trackCount = 0
  var nextID: UInt32 = 1
  /// This frame's contacts.
  var input = ContactList()
  var invalidRun = 0

  public init(settings: TrackerSettings) { self.settings = settings }

  /// A yielding accessor, so a borrowed tracker's storage is not copied.
  public subscript(index: Int) -> TrackedTouch { _read { yield reported[index] } }

  /// Touches currently active (began and not yet ended).
  public var activeCount: Int {
    var n = 0
    for i in 0..<trackCount where tracks[i].active { n += 1 }
    return n
  }

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
    var phase = TouchPhase.began

    var report: TrackedTouch {
      TrackedTouch(id: id, phase: phase, x: Length_um(rawValue: x), y: Length_um(rawValue: y), force: force)
    }
  }

  /// Feeds one frame of the core.
  public mutating func update(contacts: ContactList, outcome: FrameOutcome, loadAbsorbed: Bool) {
    // One copy into storage the tracker owns: reading a borrowed list
    // element by element would copy all of it each time.
    input = contacts
    count = 0
    if loadAbsorbed {
      cancelAll()
      return
    }
    switch outcome {
    case .seeding:
      return
    case .invalid:
      invalidRun += 1
      if invalidRun >= settings.invalidLimit { cancelAll() }
      return
    case .measured:
      invalidRun = 0
    }
    associate()
    // Unmatched contacts strong enough start candidates.
    for c in 0..<input.count where !isClaimed(c) {
      let contact = input[c]
      guard contact.force >= settings.touchOn, trackCount < 16 else { continue }
      var t = Track()
      t.x = contact.x.rawValue
      t.y = contact.y.rawValue
      t.force = contact.force
      t.matched = c
      t.run = 0
      tracks[trackCount] = t
      trackCount += 1
    }
    for i in 0..<trackCount { advance(i) }
    emit()
  }

  func isClaimed(_ contact: Int) -> Bool {
    for i in 0..<trackCount where tracks[i].matched == contact { return true }
    return false
  }

  /// Greedy nearest-pair matching of tracks to contacts within the gate.
  mutating func associate() {
    for i in 0..<trackCount { tracks[i].matched = -1 }
    let gate = Int64(settings.gate.rawValue)
    let gate2 = gate * gate
    while true {
      var best: Int64 = Int64.max
      var bi = -1
      var bc = -1
      for i in 0..<trackCount where tracks[i].matched < 0 {
        for c in 0..<input.count where !isClaimed(c) {
          let dx = Int64(input[c].x.rawValue) - Int64(tracks[i].x)
          let dy = Int64(input[c].y.rawValue) - Int64(tracks[i].y)
          let d = dx * dx + dy * dy
          // Active touches win ties over candidates.
          let rank = d * 2 + (tracks[i].active ? 0 : 1)
          if d <= gate2 && rank < best {
            best = rank
            bi = i
            bc = c
          }
        }
      }
      if bi < 0 { return }
      tracks[bi].matched = bc
    }
  }

  /// Moves one track forward by a frame.
  mutating func advance(_ i: Int) {
    var t = tracks[i]
    defer { tracks[i] = t }
    let c = t.matched
    if !t.active {
      // Candidate: needs `debounce` strong frames in a row.
      guard c >= 0, input[c].force >= settings.touchOn else {
        t.run = -1  // dropped below
        return
      }
      t.x = input[c].x.rawValue
      t.y = input[c].y.rawValue
      t.force = input[c].force
      t.run += 1
      if t.run >= settings.debounce && activeCount < settings.maxTouches {
        t.active = true
        t.id = nextID
        nextID = nextID == UInt32.max ? 1 : nextID + 1
        t.phase = .began
        t.refX = t.x
        t.refY = t.y
        t.run = 0
      }
      return
    }
    if c >= 0 {
      let contact = input[c]
      // Smooth the position in proportion to force: a light contact's
      // position is noisy (its noise grows as 1/F).
      let scaled = Int64(contact.force.rawValue) * 64 / Int64(max(settings.touchOn.rawValue, 1))
      let weight = min(256, max(32, scaled))
      t.x = Int32(Int64(t.x) + (((Int64(contact.x.rawValue) - Int64(t.x)) * weight) >> 8))
      t.y = Int32(Int64(t.y) + (((Int64(contact.y.rawValue) - Int64(t.y)) * weight) >> 8))
      t.force = contact.force
      t.run = contact.force <= settings.touchOff ? t.run + 1 : 0
    } else {
      t.run += 1
    }
    if t.run >= settings.releaseFrames {
      t.phase = .ended
      return
    }
    let dx = Int64(t.x) - Int64(t.refX)
    let dy = Int64(t.y) - Int64(t.refY)
    let m = Int64(settings.moveThreshold.rawValue)
    if dx * dx + dy * dy >= m * m {
      t.phase = .moved
      t.refX = t.x
      t.refY = t.y
    } else {
      t.phase = .stationary
    }
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
        remove(i)
        continue
      }
      i += 1
    }
  }

  mutating func insertReport(_ touch: TrackedTouch) {
    var j = count
    reported[j] = touch
    count += 1
    while j > 0 && reported[j - 1].id > reported[j].id {
      let tmp = reported[j - 1]
      reported[j - 1] = reported[j]
      reported[j] = tmp
      j -= 1
    }
  }

  mutating func remove(_ i: Int) {
    trackCount -= 1
    if i < trackCount {
      for j in i..<trackCount { tracks[j] = tracks[j + 1] }
    }
  }

  /// Every active touch is cancelled; candidates are dropped.
  public mutating func cancelAll() {
    count = 0
    for i in 0..<trackCount where tracks[i].active {
      var t = tracks[i]
      t.phase = .cancelled
      insertReport(t.report)
      tracks[i] = t
    }
    trackCount = 0
  }
}
