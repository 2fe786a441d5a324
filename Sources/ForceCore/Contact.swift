/// A region of the force image pressed in this frame: where and how hard.
public struct Contact: Sendable, Equatable {
  public var x: Length_um
  public var y: Length_um
  public var force: Force_mN
  /// The cell with the largest force (for a plate, the most loaded support).
  public var peakCell: Int16
  /// How many cells contribute to `force`.
  public var cellCount: Int16
  /// How far the contact stands out of the noise: the force it is detected
  /// by (a plate's total, the 3 x 3 cells around a grid peak) over that
  /// force's noise, Q8 (256 = one standard deviation).
  public var snr_Q8: Int32 = Int32.max
  /// The noise of the force it is detected by (one standard deviation).
  public var noise = Force_mN.zero
  /// The spread of its position from the cells' noise (one standard
  /// deviation; it grows as 1 / force).
  public var positionNoise = Length_um.zero
  /// Two presses the data cannot separate (fingers closer than the panel
  /// resolves), reported as this one contact at their joint fit's centre
  /// with their total force; `spread` is half their fitted distance.
  public var merged = false
  public var spread = Length_um.zero

  /// A contact; `snr_Q8` defaults to "far above the noise" (a contact
  /// built by hand, or on a panel whose noise is not measured).
  public init(
    x: Length_um, y: Length_um, force: Force_mN, peakCell: Int16 = 0, cellCount: Int16 = 1,
    snr_Q8: Int32 = Int32.max
  ) {
    self.snr_Q8 = snr_Q8
    self.x = x
    self.y = y
    self.force = force
    self.peakCell = peakCell
    self.cellCount = cellCount
  }

  public static let none = Contact(x: .zero, y: .zero, force: .zero, peakCell: -1, cellCount: 0, snr_Q8: 0)
}

/// The contacts of one frame, strongest first; at most `Capacity.contacts`.
public struct ContactList: Sendable {
  public private(set) var count: Int = 0
  /// The largest contact force in the list (zero when empty).
  public private(set) var strongest = Force_mN.zero
  @usableFromInline var storage: InlineArray<16, Contact> = InlineArray(repeating: .none)

  public init() {}

  /// Note: reading through a borrowed list copies its storage (Embedded
  /// Swift allows no yielding accessor here); hot loops keep the list in
  /// a `var` they own. Inlinable, so that other modules' hot loops read
  /// their `var` in place too (an out-of-line getter copies the storage).
  @inlinable
  public subscript(index: Int) -> Contact {
    @inline(__always) get { storage[index] }
  }

  public var isEmpty: Bool { count == 0 }

  @inline(__always)
  public mutating func removeAll() {
    count = 0
    strongest = .zero
  }

  /// Inserts `contact` in force order, keeping at most `limit` contacts
  /// (the weakest drops out). Returns false when it did not fit.
  @discardableResult
  public mutating func insert(_ contact: Contact, limit: Int = Capacity.contacts) -> Bool {
    let limit = min(limit, Capacity.contacts)
    var i: Int
    if count < limit {
      i = count
      count += 1
    } else if count > 0 && storage[count - 1].force < contact.force {
      i = count - 1
    } else {
      return false
    }
    while i > 0 && storage[i - 1].force < contact.force {
      storage[i] = storage[i - 1]
      i -= 1
    }
    storage[i] = contact
    strongest = storage[0].force
    return true
  }
}
