import ForceCore

/// The interaction layer of the frame path: per touch, force stages or the
/// touch-and-hold fallback (`PressState`), on the item under the touch
/// (`RegionMap`); force capability from the settings, the calibration and
/// the frames' health; settings the host may change while running.
///
/// Frame path: `observe(&frame)` then `update(&report)` once per frame,
/// both allocation-free. Setters and `apply` take effect at the next frame
/// and announce themselves there (panel events, touch 0).
public struct Interaction: Sendable {
  public private(set) var settings: InteractionSettings
  public private(set) var regions: RegionMap
  /// The capability last reported; a stream starts as available, so a
  /// run that starts otherwise announces it in its first frame.
  public private(set) var capability = ForceCapability.available
  /// Whether the run has a valid calibration.
  public private(set) var calibrated: Bool
  public private(set) var health: ForceHealthMonitor
  /// Contacts and positions while a cell is dead (at its rail).
  public private(set) var failedCells: FailedCellEstimate
  public private(set) var rate_hz: Int
  var rules: PressRules
  var slots: TouchArray<PressState> = TouchArray(repeating: PressState())
  var announceSensitivity = false
  var announceRegions = false
  var regionsGeneration: UInt64 = 1
  var reportedGeneration: UInt64 = 0

  /// - Parameters:
  ///   - regions: the host's items (`RegionMap.whole` for none).
  ///   - failedCells: the panel's cells, for positions while one is dead.
  ///   - calibrated: false when running on nominal gains: force unavailable.
  public init(
    settings: InteractionSettings, rate_hz: Int, regions: RegionMap, failedCells: FailedCellEstimate,
    calibrated: Bool = true
  ) {
    self.settings = settings
    self.regions = regions
    self.calibrated = calibrated
    self.rate_hz = rate_hz
    health = ForceHealthMonitor(rate_hz: rate_hz)
    self.failedCells = failedCells
    rules = PressRules(settings: settings, sensitivity: settings.sensitivity, rate_hz: rate_hz)
  }

  /// `init(settings:rate_hz:regions:failedCells:calibrated:)` in place (a
  /// firmware's static storage), with the failed-cell estimate's panel
  /// (`FailedCellEstimate.setUp`).
  public mutating func setUp(
    settings: InteractionSettings, rate_hz: Int, regions: RegionMap, calibrated: Bool = true, cellCount: Int,
    x_mm: inout CellArray<Double>, y_mm: inout CellArray<Double>, columns: Int, rows: Int, pitch_mm: Double,
    cellFloor: Force_mN
  ) {
    self.settings = settings
    self.regions = regions
    self.calibrated = calibrated
    self.rate_hz = rate_hz
    capability = .available
    health.setUp(rate_hz: rate_hz)
    failedCells.setUp(
      cellCount: cellCount, x_mm: &x_mm, y_mm: &y_mm, columns: columns, rows: rows, pitch_mm: pitch_mm,
      cellFloor: cellFloor)
    rules = PressRules(settings: settings, sensitivity: settings.sensitivity, rate_hz: rate_hz)
    for i in 0..<Capacity.contacts { slots[i] = PressState() }
    announceSensitivity = false
    announceRegions = false
    regionsGeneration = 1
    reportedGeneration = 0
  }

  public var thresholds: StageThresholds { rules.thresholds }
  /// Counts the maps `replaceRegions` has put in place: a caller that
  /// composes the map from parts tells another's replacement by it.
  public var regionsVersion: UInt64 { regionsGeneration }
  public var holdFrames: Int { Int(rules.holdFrames) }

  // MARK: Run-time settings

  /// Light, Medium or Firm, from the next frame on (touches in progress
  /// keep their stage; their next stages use the new thresholds).
  public mutating func setSensitivity(_ s: Sensitivity) {
    guard s != settings.sensitivity else { return }
    settings.sensitivity = s
    rules = PressRules(settings: settings, sensitivity: s, rate_hz: rate_hz)
    announceSensitivity = true
  }

  /// Turns 3D Touch on or off (the capability changes at the next frame).
  public mutating func setForceTouch(_ on: Bool) { settings.forceTouch = on }

  /// Replaces the items. Touches in progress are looked up again at their
  /// touch-down point.
  public mutating func replaceRegions(_ map: RegionMap) {
    regions = map
    regionsGeneration &+= 1
    announceRegions = true
    for i in 0..<Capacity.contacts where slots[i].used {
      let item = map.hit(x: Length_um(rawValue: slots[i].originX), y: Length_um(rawValue: slots[i].originY))
      slots[i].item = item
      slots[i].traits = map.traits(of: item)
    }
  }

  /// What force can do now.
  public var currentCapability: ForceCapability {
    if !settings.forceTouch { return .off }
    if !calibrated { return ForceCapability(state: .unavailable, reason: .noCalibration) }
    return health.fault
  }

  // MARK: Frame path

  /// Watches a raw frame for faults (`inout` only so its counts are read in
  /// place; it is not modified).
  public mutating func observe(_ frame: inout RawFrame) {
    health.observe(&frame)
  }

  /// The frame's contacts for the tracker: the core's, or, with a cell at
  /// its rail, found again with that cell estimated (`FailedCellEstimate`).
  public mutating func contacts(of pipeline: inout ForcePipeline) -> ContactList {
    failedCells.contacts(&pipeline, health: &health)
  }

  /// Sets each touch's stage, progress, item and degraded flag in `report`
  /// and appends the frame's events.
  public mutating func update(_ report: inout FrameReport) {
    let now = report.time.rawValue
    if reportedGeneration != regionsGeneration {
      report.regions = regions
      reportedGeneration = regionsGeneration
    }
    report.sensitivity = settings.sensitivity
    let cap = currentCapability
    if cap != capability {
      if !cap.isAvailable {
        for i in 0..<Capacity.contacts where slots[i].used { slots[i].loseForce(t_us: now, report: &report) }
      }
      capability = cap
      report.append(TouchEvent(kind: .capability, touch: 0))
    }
    report.capability = capability
    if announceSensitivity {
      announceSensitivity = false
      report.append(TouchEvent(kind: .sensitivity, touch: 0))
    }
    if announceRegions {
      announceRegions = false
      report.append(TouchEvent(kind: .regions, touch: 0))
    }
    let holdMode = !capability.isAvailable
    for i in 0..<report.touchCount {
      let t = report[touch: i].touch
      if failedCells.degrades(x: t.x, y: t.y) { report.setDegraded(at: i) }
      let s = slot(for: t.id)
      if !slots[s].used {
        let item = regions.hit(x: t.x, y: t.y)
        slots[s] = PressState(
          id: t.id, x: t.x.rawValue, y: t.y.rawValue, t_us: now, item: item, traits: regions.traits(of: item),
          holdMode: holdMode)
        slots[s].originNoise = t.positionNoise.rawValue
      }
      slots[s].place(x: t.x, y: t.y, noise: t.positionNoise.rawValue, regions: regions)
      var progress: UInt16 = 0
      if t.phase.isFinal {
        progress = slots[s].stage == .pop ? 1000 : 0
        report.setInteraction(stage: slots[s].stage, progress_milli: progress, item: slots[s].item, at: i)
        slots[s].finish(report: &report)
        continue
      }
      progress = slots[s].step(
        x: t.x.rawValue, y: t.y.rawValue, noise: t.positionNoise.rawValue, force: t.force.rawValue, t_us: now,
        rules: rules, report: &report)
      slots[s].commitItem()
      report.setInteraction(stage: slots[s].stage, progress_milli: progress, item: slots[s].item, at: i)
    }
  }

  /// The slot of touch `id`, or a free one (marked unused) for a new touch.
  mutating func slot(for id: UInt32) -> Int {
    var free = -1
    for i in 0..<Capacity.contacts {
      if slots[i].used && slots[i].id == id { return i }
      if !slots[i].used && free < 0 { free = i }
    }
    if free >= 0 { return free }
    // More touches than slots cannot happen (a report holds as many as
    // the tracker makes); reuse 0.
    slots[0].used = false
    return 0
  }
}
