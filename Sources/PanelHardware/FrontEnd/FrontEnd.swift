import ForceCore

/// Why a front end could not deliver.
public enum FrontEndError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A chip did not answer or failed, named by where it sits.
  case chip(String, I2CError)
  /// The front end could not be set up (wrong configuration, missing device).
  case setup(String)
  /// Reading a recorded or scripted source failed.
  case source(String)

  public var description: String {
    switch self {
    case .chip(let location, let error): return "\(location): \(error)"
    case .setup(let why): return why
    case .source(let why): return why
    }
  }
}

/// Counters of what a front end went through; they only grow.
public struct FrontEndHealth: Sendable, Equatable {
  public var frames: UInt64 = 0
  /// Frames delivered marked invalid (a chip missing or failing).
  public var invalidFrames: UInt64 = 0
  /// Frames the source produced that were never read (overrun).
  public var missedFrames: UInt64 = 0
  /// Results not taken because they were not new: a frame read again
  /// (the same sequence number), an early data-ready edge whose chip had
  /// no new conversion.
  public var staleResults: UInt64 = 0
  /// Conversions found ready by the chip's own status after its
  /// data-ready line gave no edge in time.
  public var lateReady: UInt64 = 0
  public var retries: UInt64 = 0
  public var busErrors: UInt64 = 0
  /// Chips found reset and initialised again.
  public var reinitialisations: UInt64 = 0
  public init() {}
}

/// The source of raw frames: a driver stack over a bus, a simulated panel or
/// a recording. The scan loop is generic over it.
public protocol FrontEnd {
  /// Cells per frame, in board cell order.
  var cellCount: Int { get }
  var health: FrontEndHealth { get }
  /// Brings the front end up (power-up sequences, configuration).
  mutating func start() throws(FrontEndError)
  /// Waits for the next frame and fills `frame` in place. Returns false when
  /// the source has ended (a recording or script ran out). A frame whose
  /// cells could not all be read comes back with `valid == false`.
  mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool
  /// Whether the frame last delivered is known to be the source's last (a
  /// recording's last row, the end of a script or of a run limit): the
  /// scan loop then closes every touch in that frame's report. A source
  /// that cannot know says false and simply ends.
  var isAtEnd: Bool { get }
  /// The oldest notice not yet taken (a chip failed, reset or came back),
  /// for the user; nil when there is none.
  mutating func takeNotice() -> FrontEndNotice?
}

extension FrontEnd {
  public mutating func takeNotice() -> FrontEndNotice? { nil }
  public var isAtEnd: Bool { false }
}
