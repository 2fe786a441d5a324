import Testing

@testable import ForceCore

#if canImport(Glibc)
  import Glibc
#endif

/// Contacts on a grid from synthetic force images.
@Suite struct ContactFinderTests {
  static let columns = 8
  static let rows = 6
  static let pitch = 20.0

  static func finder(_ interpolation: PeakInterpolation) -> ContactFinder {
    let g = PanelGeometry(
      width: Length_um(millimetres: 160), height: Length_um(millimetres: 120), columns: columns,
      rows: rows, pitch: Length_um(millimetres: pitch))
    var c = CoreConfiguration()
    c.interpolation = interpolation
    return ContactFinder(geometry: g, configuration: c)
  }

  /// A Gaussian press of `newtons` at (x, y) mm sampled at cell centres.
  static func image(_ presses: [(Double, Double, Double)], sigma: Double = 12) -> CellArray<Force_mN> {
    var img = CellArray<Force_mN>(repeating: .zero)
    for k in 0..<(columns * rows) {
      let cx = (Double(k % columns) + 0.5) * pitch
      let cy = (Double(k / columns) + 0.5) * pitch
      var f = 0.0
      for (n, x, y) in presses {
        let d2 = (cx - x) * (cx - x) + (cy - y) * (cy - y)
        f += n * exp(-d2 / (2 * sigma * sigma)) * pitch * pitch / (2 * Double.pi * sigma * sigma)
      }
      img[k] = Force_mN(newtons: f)
    }
    return img
  }

  @Test func gaussianFitIsExactForAGaussianSpread() {
    var finder = Self.finder(.gaussian)
    var contacts = ContactList()
    for (x, y) in [(50.0, 50.0), (57.3, 61.9), (93.0, 44.0), (110.0, 70.0)] {
      var img = Self.image([(1, x, y)])
      finder.find(&img, into: &contacts)
      #expect(contacts.count == 1)
      #expect(abs(contacts[0].x.millimetres - x) < 0.05, "x of (\(x), \(y)): \(contacts[0].x.millimetres)")
      #expect(abs(contacts[0].y.millimetres - y) < 0.05, "y of (\(x), \(y)): \(contacts[0].y.millimetres)")
      // Sampling a Gaussian at cell centres does not sum to exactly 1 N.
      #expect(abs(contacts[0].force.newtons - 1) < 0.05)
    }
  }

  @Test(arguments: [PeakInterpolation.centroid, .parabolic])
  func otherInterpolationsStayWithinACellFraction(_ interpolation: PeakInterpolation) {
    var finder = Self.finder(interpolation)
    var contacts = ContactList()
    for (x, y) in [(50.0, 50.0), (57.3, 61.9), (93.0, 44.0)] {
      var img = Self.image([(1, x, y)])
      finder.find(&img, into: &contacts)
      #expect(contacts.count == 1)
      #expect(abs(contacts[0].x.millimetres - x) < 4)
      #expect(abs(contacts[0].y.millimetres - y) < 4)
    }
  }

  @Test func separatePressesAreSeparateContacts() {
    var finder = Self.finder(.parabolic)
    var contacts = ContactList()
    var img = Self.image([(1, 50, 60), (0.7, 95, 60)])
    finder.find(&img, into: &contacts)
    #expect(contacts.count == 2)
    // Strongest first; each keeps its own force. The tails overlap, which
    // pulls each parabola toward the other press a little.
    #expect(abs(contacts[0].x.millimetres - 50) < 6)
    #expect(abs(contacts[1].x.millimetres - 95) < 6)
    #expect(contacts[0].force > contacts[1].force)
    #expect(abs(contacts[0].force.newtons + contacts[1].force.newtons - 1.7) < 0.05)
  }

  @Test func aSaddleAboveTheMergeLevelIsOneContact() {
    var finder = Self.finder(.parabolic)
    var img = CellArray<Force_mN>(repeating: .zero)
    // Two maxima two cells apart, the middle within the cells' gain
    // tolerance (3 %) of the smaller: one contact.
    img[2 * 8 + 2] = Force_mN(newtons: 0.5)
    img[2 * 8 + 3] = Force_mN(newtons: 0.47)
    img[2 * 8 + 4] = Force_mN(newtons: 0.48)
    var contacts = ContactList()
    finder.find(&img, into: &contacts)
    #expect(contacts.count == 1)
    #expect(abs(contacts[0].force.newtons - 1.45) < 0.001)
    // A dip of 6 % on quiet cells is real: two.
    img[2 * 8 + 3] = Force_mN(newtons: 0.45)
    finder.find(&img, into: &contacts)
    #expect(contacts.count == 2)
    // A low middle: two.
    img[2 * 8 + 3] = Force_mN(newtons: 0.1)
    finder.find(&img, into: &contacts)
    #expect(contacts.count == 2)
  }

  /// Two fingers 2.5 pitches apart on a diagonal, the weaker on a cell's
  /// corner: its four cells meet one of the stronger's only at a corner,
  /// so none of them is a maximum over all eight neighbours; it is still a
  /// contact of its own. One press on a cell's corner, with its four cells
  /// a few percent apart, stays one contact.
  @Test func aFingerWhoseCellsMeetAnotherOnlyAtACornerKeepsItsPeak() {
    var finder = Self.finder(.gaussian)
    var contacts = ContactList()
    // The stronger between cells (3, 3) and (4, 3), the weaker on the
    // corner of cells (1, 1), (2, 1), (1, 2), (2, 2): cell (2, 2) touches
    // (3, 3) diagonally.
    var two = Self.image([(1.2, 81, 70), (0.9, 41, 41)], sigma: 9)
    finder.find(&two, into: &contacts)
    #expect(contacts.count == 2, "\(contacts.count) contacts")
    if contacts.count == 2 {
      let weaker = contacts[1]
      #expect(abs(weaker.x.millimetres - 41) < 4 && abs(weaker.y.millimetres - 41) < 4, "\(weaker)")
      #expect(abs(weaker.force.newtons - 0.9) < 0.15, "\(weaker.force.newtons) N")
    }
    for (x, y) in [(40.0, 40.0), (39.6, 80.4), (60.5, 59.5)] {
      var one = Self.image([(1, x, y)], sigma: 9)
      // The gains' few percent: one of the four cells 3 % high.
      let k = Int(y / Self.pitch - 0.5) * Self.columns + Int(x / Self.pitch + 0.5)
      one[k] = Force_mN(newtons: one[k].newtons * 1.03)
      finder.find(&one, into: &contacts)
      #expect(contacts.count == 1, "one press at (\(x), \(y)): \(contacts.count) contacts")
    }
  }

  @Test func weakImagesHaveNoContacts() {
    var finder = Self.finder(.parabolic)
    var contacts = ContactList()
    var img = Self.image([(0.03, 80, 60)])
    finder.find(&img, into: &contacts)
    #expect(contacts.isEmpty)
  }

  @Test func reportsAtMostTheConfiguredNumber() {
    let g = PanelGeometry(
      width: Length_um(millimetres: 160), height: Length_um(millimetres: 120), columns: 8, rows: 6,
      pitch: Length_um(millimetres: 20))
    var c = CoreConfiguration()
    c.maxContacts = 2
    var finder = ContactFinder(geometry: g, configuration: c)
    var contacts = ContactList()
    var img = Self.image([(1, 30, 30), (2, 90, 30), (3, 30, 90), (0.5, 130, 90)])
    finder.find(&img, into: &contacts)
    #expect(contacts.count == 2)
    #expect(abs(contacts[0].force.newtons - 3) < 0.15)
    #expect(abs(contacts[1].force.newtons - 2) < 0.15)
  }

  /// On noisy cells a dip within the noise is one press, unless the learnt
  /// spreading says one press could not have left the weaker maximum.
  @Test func aDipWithinTheNoiseIsOnePressUnlessTheSpreadingSaysOtherwise() {
    var img = CellArray<Force_mN>(repeating: .zero)
    img[2 * 8 + 2] = Force_mN(newtons: 0.5)
    img[2 * 8 + 3] = Force_mN(newtons: 0.1)
    img[2 * 8 + 4] = Force_mN(newtons: 0.12)
    var noise = NoiseMap(cellFloor: Force_mN(newtons: 0.01))
    for k in 0..<(Self.columns * Self.rows) { noise.sigma[k] = Force_mN(newtons: 0.006).rawValue }
    let g = PanelGeometry(
      width: Length_um(millimetres: 160), height: Length_um(millimetres: 120), columns: Self.columns,
      rows: Self.rows, pitch: Length_um(millimetres: Self.pitch))
    var c = CoreConfiguration()
    c.interpolation = .parabolic
    var contacts = ContactList()
    // A dip of 20 mN, within three deviations of two cells of 6 mN.
    var finder = ContactFinder(geometry: g, configuration: c)
    finder.find(&img, noise: &noise, into: &contacts)
    #expect(contacts.count == 1)
    // A spreading that falls from 30 % at one pitch to 2 % at two: a press
    // at the strong peak leaves the far cell 28 % of it below the middle.
    c.spreading_Q16 = [65536, 60000, 45000, 30000, 19661, 10000, 5000, 2500, 1311, 600, 300, 100, 0]
    finder = ContactFinder(geometry: g, configuration: c)
    finder.find(&img, noise: &noise, into: &contacts)
    #expect(contacts.count == 2)
  }

  /// The interpolation's bias, tabulated, is undone: an estimator that
  /// reads 80 % of every offset gives the true offset back.
  @Test func theInterpolationBiasIsInverted() {
    var table = InterpolationBias.identity
    for k in 0..<InterpolationBias.entries { table[k] = Int32(Double(k) / 32 * 0.8 * 65536) }
    for truth in [0.0, 0.05, 0.2, 0.31, 0.5] {
      let estimate = Int64(truth * 0.8 * 65536)
      #expect(abs(Double(InterpolationBias.correct(estimate, &table)) / 65536 - truth) < 0.002)
      #expect(abs(Double(InterpolationBias.correct(-estimate, &table)) / 65536 + truth) < 0.002)
    }
    var identity = InterpolationBias.identity
    #expect(InterpolationBias.correct(12345, &identity) == 12345)
  }
}
