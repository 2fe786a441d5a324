import PanelFirmware

/// A minimal register-file chip for bus tests: a pointer byte, then
/// auto-incrementing reads and writes.
package final class RegisterFileDevice: SimulatedI2CDevice {
  package let address: I2CAddress
  package var registers: [UInt8]
  package var pointer = 0
  package var firstByte = true
  package var starts: [(reading: Bool, ns: Int64)] = []
  package var stops: [Int64] = []
  package var acknowledges = true

  package init(address: I2CAddress, registers: [UInt8] = Array(0..<16)) {
    self.address = address
    self.registers = registers
  }

  package func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool {
    starts.append((reading, ns))
    firstByte = true
    return acknowledges
  }

  package func write(_ byte: UInt8, at ns: Int64) -> Bool {
    if firstByte {
      pointer = Int(byte) % registers.count
      firstByte = false
    } else {
      registers[pointer] = byte
      pointer = (pointer + 1) % registers.count
    }
    return true
  }

  package func read(at ns: Int64) -> UInt8 {
    defer { pointer = (pointer + 1) % registers.count }
    return registers[pointer]
  }

  package func stop(at ns: Int64) { stops.append(ns) }
}
