/// A region of the force image pressed in this frame: where and how hard.
public struct Contact: Sendable, Equatable {
  public var x: Length_um
  public var y: Length_um
  public var force: Force_mN
  /// The cell with the largest force (for a plate, the most loaded support).
  public var peakCell: Int16
  /// How many cells contribute to `force`.
  public var cellCount: Int16

  public init(x: Length_um, y: Length_um, force: Force_mN, peakCell: Int16 = 0, cellCount: Int16 = 1) {
    self.x = x
    self.y = y
    self.force = force
    self.peakCell = peakCell
    self.cellCount = cellCount
  }

  public static let none = Contact(x: .zero, y: .zero, force: .zero, peakCell: -1, cellCount: 0)
}

/// The contacts of one frame, strongest first; at most `Capacity.contacts`.
public struct ContactList: Sendable {
  public private(set) var count: Int = 0
  var storage: InlineArray<16, Contact> = InlineArray(repeating: .none)

  public init() {}

  public subscript(index: Int) -> Contact {
    @inline(__always) get { storage[index] }
  }

  public var isEmpty: Bool { count == 0 }

  @inline(__always)
  public mutating func removeAll() { count = 0 }

  /// Appends `contact`; returns false when full.
  @discardableResult
  @inline(__always)
  public mutating func append(_ contact: Contact) -> Bool {
    guard count < Capacity.contacts else { return false }
    storage[count] = contact
    count += 1
    return true
  }

  /// Largest contact force in the list (zero when empty).
  public var strongest: Force_mN {
    var best = Force_mN.zero
    for i in 0..<count where storage[i].force > best { best = storage[i].force }
    return best
  }
}
