import Crypto

/// SHA-256 as lower-case hex (swift-crypto): the hashes of plans, records,
/// certificates and models in the factory database.
public enum SHA256Hex {
  public static func of(_ bytes: some Sequence<UInt8>) -> String {
    let digest = SHA256.hash(data: Array(bytes))
    var s = ""
    s.reserveCapacity(64)
    for b in digest {
      let hex = Array("0123456789abcdef")
      s.append(hex[Int(b >> 4)])
      s.append(hex[Int(b & 15)])
    }
    return s
  }

  public static func of(_ text: String) -> String { of(Array(text.utf8)) }
}
