import PanelFormats
import PanelHardware

/// Where a frame's results go: a report stream on standard output or a
/// socket, a Linux multi-touch device, a raw recording, a screen. The run
/// feeds every sink once per frame, right after `ScanLoop.step()`.
///
/// Sinks allocate nothing per frame (their buffers are sized at setup), and
/// a sink never makes the loop wait for a host it does not control: network
/// sinks queue what fits and drop and count the rest.
public protocol FrameSink {
  /// Takes the frame `loop` just processed (its report, force image, raw
  /// frame and health counters).
  mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError)
  /// Sends what is still queued (without waiting on a host) and releases
  /// the sink's resources.
  mutating func finish() throws(SinkError)
  /// Set when the sink can take nothing more (standard output's reader
  /// went away): the run ends.
  var isClosed: Bool { get }
  /// A line for the end of the run (what was sent and dropped), or nil.
  var summary: String? { get }
}

extension FrameSink {
  public var isClosed: Bool { false }
  public var summary: String? { nil }
}

/// Why a sink failed. Network trouble is not an error (it is counted);
/// these are: a local file or device that cannot be written.
public enum SinkError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Writing an output failed: what, and why.
  case output(String)
  /// A device (uinput) could not be set up or written.
  case device(String)
  case file(FileError)

  public var description: String {
    switch self {
    case .output(let why), .device(let why): return why
    case .file(let error): return error.description
    }
  }
}

/// Two sinks fed in turn: sinks compose as `SinkPair(a, SinkPair(b, c))`,
/// statically dispatched.
public struct SinkPair<First: FrameSink, Second: FrameSink>: FrameSink {
  public var first: First
  public var second: Second

  public init(_ first: First, _ second: Second) {
    self.first = first
    self.second = second
  }

  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    try first.consume(loop)
    try second.consume(loop)
  }

  public mutating func finish() throws(SinkError) {
    var failure: SinkError?
    do { try first.finish() } catch { failure = error }
    do { try second.finish() } catch { failure = failure ?? error }
    if let failure { throw failure }
  }

  public var isClosed: Bool { first.isClosed || second.isClosed }

  public var summary: String? {
    switch (first.summary, second.summary) {
    case (let a?, let b?): return a + "; " + b
    case (let a?, nil): return a
    case (nil, let b?): return b
    case (nil, nil): return nil
    }
  }
}

/// An optional sink: absent, it takes nothing.
extension Optional: FrameSink where Wrapped: FrameSink {
  public mutating func consume<Source: FrontEnd>(_ loop: ScanLoop<Source>) throws(SinkError) {
    guard self != nil else { return }
    try self!.consume(loop)
  }

  public mutating func finish() throws(SinkError) {
    guard self != nil else { return }
    try self!.finish()
  }

  public var isClosed: Bool { self?.isClosed ?? false }
  public var summary: String? { self?.summary ?? nil }
}
