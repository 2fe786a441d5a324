import FuzzSupport
import PanelFirmware

// Frames from a panel controller: any bytes decode or are refused, and a
// frame encoded from the input's fields decodes to the same fields.
runFuzzer { data, size in
  let bytes = input(data, size)
  _ = FrameProtocol.decode(UnsafeRawBufferPointer(bytes)) { _, _ in }

  guard bytes.count >= 6 else { return 0 }
  let sequence = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
  let status = FrameProtocol.Status(rawValue: bytes[2])
  let raw = Int16(bitPattern: UInt16(bytes[3]) << 8 | UInt16(bytes[4]))
  let temperature: Int16? = raw == FrameProtocol.noTemperature ? nil : raw
  var counts: [Int32] = []
  var i = 5
  while i + 3 <= bytes.count && counts.count < 255 {
    let u = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
    counts.append(Int32(bitPattern: u << 8) >> 8)
    i += 3
  }
  var frame: [UInt8] = []
  FrameProtocol.encode(sequence: sequence, status: status, temperature: temperature, counts: counts, into: &frame)
  var decoded = [Int32](repeating: 0, count: counts.count)
  let header = frame.withUnsafeBytes { FrameProtocol.decode($0) { k, v in decoded[k] = v } }
  guard let header else { fatalError("an encoded frame did not decode") }
  precondition(header.sequence == sequence && header.cells == counts.count && header.temperature == temperature)
  precondition(header.status.rawValue == status.rawValue && decoded == counts)
  return 0
}
