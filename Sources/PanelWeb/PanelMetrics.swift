import CoreMetrics
import PanelFirmware
import PanelServe
import Prometheus

#if canImport(Glibc)
  import Glibc
#endif

/// `GET /metrics`: the panel's figures in the Prometheus text format, so
/// that the monitoring that watches a fleet of panels can scrape each
/// one. The figures go through swift-metrics (counters and gauges made by
/// a `PrometheusMetricsFactory`, this server's own registry, not the
/// process's global one); each scrape brings them up to date from what
/// the scan loop last told the hub (`ServeStatus`, about ten times a
/// second) and the server's counts, then the registry writes them out.
final class PanelMetrics: Sendable {
  let registry = PrometheusCollectorRegistry()
  let state: Locked<State>
  /// The calibration's date, seconds since 1970 (nil: none, e.g. nominal).
  let calibrated_s: Int?

  /// Counters as swift-metrics has them (only ever increased) beside the
  /// last value each was brought to.
  struct Tally {
    let counter: CoreMetrics.Counter
    var last: UInt64 = 0

    mutating func set(_ value: UInt64) {
      if value > last { counter.increment(by: value - last) }
      last = max(last, value)
    }
  }

  struct State {
    var counters: [String: Tally]
    var gauges: [String: CoreMetrics.Gauge]
  }

  static let counterNames = [
    "panel_frames_total", "panel_frames_invalid_total", "panel_frames_missed_total", "panel_bus_retries_total",
    "panel_bus_errors_total", "panel_frontend_reinits_total", "panel_core_spikes_total",
    "panel_core_saturated_samples_total", "panel_core_reseeds_total", "panel_core_absorbed_loads_total",
    "panel_ws_clients_total", "panel_ws_messages_sent_total", "panel_ws_messages_dropped_total",
    "panel_http_connections_total",
  ]
  static let gaugeNames = [
    "panel_frame_rate_hz", "panel_touches", "panel_force_available", "panel_ws_clients", "panel_http_connections",
    "panel_calibration_age_seconds",
  ]

  init(board: Board, calibration: CalibrationRecord) {
    let factory = PrometheusMetricsFactory(registry: registry)
    var counters: [String: Tally] = [:]
    for name in Self.counterNames {
      counters[name] = Tally(counter: CoreMetrics.Counter(label: name, factory: factory))
    }
    var gauges: [String: CoreMetrics.Gauge] = [:]
    for name in Self.gaugeNames { gauges[name] = CoreMetrics.Gauge(label: name, factory: factory) }
    // What the panel is: one series with its names as labels.
    CoreMetrics.Gauge(
      label: "panel_info",
      dimensions: [("board", board.name), ("serial", calibration.serial), ("calibration", calibration.source)],
      factory: factory
    ).record(1)
    state = Locked(State(counters: counters, gauges: gauges))
    let created = PanelRecordCodec.epoch(calibration.created)
    calibrated_s = calibration.created.isEmpty || created == 0 ? nil : created
  }

  /// The text of a scrape.
  func scrape(status s: ServeStatus, totals t: ServeTotals, connections c: ConnectionCounts) -> [UInt8] {
    state.withLock { m in
      let counts: [(String, UInt64)] = [
        ("panel_frames_total", s.frames), ("panel_frames_invalid_total", s.frontEnd.invalidFrames),
        ("panel_frames_missed_total", s.frontEnd.missedFrames), ("panel_bus_retries_total", s.frontEnd.retries),
        ("panel_bus_errors_total", s.frontEnd.busErrors),
        ("panel_frontend_reinits_total", s.frontEnd.reinitialisations),
        ("panel_core_spikes_total", UInt64(s.core.spikes)),
        ("panel_core_saturated_samples_total", UInt64(s.core.saturatedSamples)),
        ("panel_core_reseeds_total", UInt64(s.core.reseeds)),
        ("panel_core_absorbed_loads_total", UInt64(s.core.absorbedLoads)),
        ("panel_ws_clients_total", UInt64(t.clients)), ("panel_ws_messages_sent_total", t.sent),
        ("panel_ws_messages_dropped_total", t.dropped), ("panel_http_connections_total", UInt64(c.accepted)),
      ]
      for (name, value) in counts { m.counters[name]?.set(value) }
      m.gauges["panel_frame_rate_hz"]?.record(Double(s.rate_centihertz) / 100)
      m.gauges["panel_touches"]?.record(s.touches)
      m.gauges["panel_force_available"]?.record(s.capability.isAvailable ? 1 : 0)
      m.gauges["panel_ws_clients"]?.record(t.connected)
      m.gauges["panel_http_connections"]?.record(c.open)
      if let calibrated_s { m.gauges["panel_calibration_age_seconds"]?.record(max(0, time(nil) - calibrated_s)) }
    }
    return registry.emitToBuffer()
  }
}
