import ForceCore
import Testing

@Suite struct CouplingMatrixTests {
  static func image(_ newtons: [Double]) -> CellArray<Force_mN> {
    var image = CellArray<Force_mN>(repeating: .zero)
    for (i, f) in newtons.enumerated() { image[i] = Force_mN(newtons: f) }
    return image
  }

  @Test func anEmptyOrIdentityMatrixChangesNothing() {
    var image = Self.image([1.5, -0.25, 2, 0.125])
    let before = image
    var none = CouplingMatrix()
    none.apply(&image)
    var identity = CouplingMatrix(size: 4)
    identity.apply(&image)
    for i in 0..<4 { #expect(image[i] == before[i]) }
  }

  @Test func aMatrixMixesTheCellsForces() {
    var m = CouplingMatrix(size: 3)
    m.set(0, 1, -0.03)  // cell 0 reads 3 % of cell 1 too much
    m.set(2, 2, 1.01)
    var image = Self.image([1, 2, 4])
    m.apply(&image)
    #expect(abs(image[0].newtons - (1 - 0.06)) < 2e-6)
    #expect(abs(image[1].newtons - 2) < 2e-6)
    #expect(abs(image[2].newtons - 4.04) < 2e-6)
    #expect(abs(m.value(0, 1) + 0.03) < 1e-7)
  }

  @Test func thePipelineAppliesItToThePlate() {
    var geometry = PanelGeometry(width: Length_um(millimetres: 100), height: Length_um(millimetres: 100))
    for (x, y) in [(0.0, 0.0), (100.0, 0.0), (0.0, 100.0), (100.0, 100.0)] {
      geometry.addCell(x: Length_um(millimetres: x), y: Length_um(millimetres: y))
    }
    var calibration = CellArray<CellCalibration>(repeating: .unity)
    for k in 0..<4 { calibration[k] = CellCalibration(offset: 0, gain: 1000) }
    var m = CouplingMatrix(size: 4)
    m.set(0, 0, 2)  // cell 0 counts double
    var plain = ForcePipeline(geometry: geometry, calibration: calibration, configuration: CoreConfiguration())
    var coupled = ForcePipeline(geometry: geometry, calibration: calibration, configuration: CoreConfiguration(), coupling: m)
    var frame = RawFrame(cellCount: 4)
    for _ in 0..<20 {
      plain.process(&frame)
      coupled.process(&frame)
    }
    for k in 0..<4 { frame.counts[k] = 250 }  // 0.25 N on each cell (1 count = 1 mN)
    for _ in 0..<4 {
      plain.process(&frame)
      coupled.process(&frame)
    }
    #expect(abs(plain.contacts[0].force.newtons - 1) < 1e-3)
    #expect(abs(coupled.contacts[0].force.newtons - 1.25) < 1e-3)
    // The centre of pressure moves toward cell 0.
    #expect(coupled.contacts[0].x.millimetres < plain.contacts[0].x.millimetres - 5)
  }
}
