import PanelFormats

/// A minimal SVG writer for the certificate's plots (inline, no scripts).
package struct SVG {
  package let width: Double
  package let height: Double
  package var body = ""

  package init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  package var text: String {
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
      + body + "</svg>\n"
  }

  package mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, stroke: String = "none", extra: String = "") {
    body += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(w, 0)))\" height=\"\(n(max(h, 0)))\" fill=\"\(fill)\" stroke=\"\(stroke)\" \(extra)/>\n"
  }

  package mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
    let d = dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
    body += "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\"\(d)/>\n"
  }

  package mutating func circle(_ x: Double, _ y: Double, _ r: Double, fill: String, stroke: String = "none", width: Double = 1) {
    body += "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(r))\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\"/>\n"
  }

  package mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double = 1.5) {
    guard points.count > 1 else { return }
    let p = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
    body += "<polyline points=\"\(p)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\"/>\n"
  }

  package enum Anchor: String {
    case start, middle, end
  }

  package mutating func label(
    _ x: Double, _ y: Double, _ s: String, size: Double = 11, anchor: Anchor = .start, fill: String = "#333",
    bold: Bool = false, rotate: Double? = nil
  ) {
    let weight = bold ? " font-weight=\"bold\"" : ""
    let r = rotate.map { " transform=\"rotate(\(n($0)) \(n(x)) \(n(y)))\"" } ?? ""
    body += "<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" text-anchor=\"\(anchor.rawValue)\" fill=\"\(fill)\"\(weight)\(r)>\(HTML.escape(s))</text>\n"
  }

  /// An arrow from (x1, y1) to (x2, y2).
  package mutating func arrow(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1.5) {
    line(x1, y1, x2, y2, stroke: stroke, width: width)
    let dx = x2 - x1
    let dy = y2 - y1
    let length = (dx * dx + dy * dy).squareRoot()
    guard length > 3 else { return }
    let ux = dx / length
    let uy = dy / length
    let head = min(6, length / 2)
    let p1 = (x2 - head * ux + head * 0.5 * uy, y2 - head * uy - head * 0.5 * ux)
    let p2 = (x2 - head * ux - head * 0.5 * uy, y2 - head * uy + head * 0.5 * ux)
    body += "<polygon points=\"\(n(x2)),\(n(y2)) \(n(p1.0)),\(n(p1.1)) \(n(p2.0)),\(n(p2.1))\" fill=\"\(stroke)\"/>\n"
  }

  package func n(_ v: Double) -> String { Format.fixed(v.isFinite ? v : 0, 1) }

  /// "Nice" tick values covering [low, high], about `count` of them.
  package static func ticks(_ low: Double, _ high: Double, count: Int = 4) -> [Double] {
    guard high > low, low.isFinite, high.isFinite else { return [low] }
    let raw = (high - low) / Double(max(count, 1))
    var step = 1.0
    while step > raw { step /= 10 }
    while step * 10 <= raw { step *= 10 }
    for m in [1.0, 2.0, 5.0, 10.0] where step * m >= raw {
      step *= m
      break
    }
    var t = (low / step).rounded(.up) * step
    var list: [Double] = []
    while t <= high + step * 1e-9 {
      list.append(abs(t) < step * 1e-9 ? 0 : t)
      t += step
    }
    return list
  }

  /// A tick's label with the decimals its spacing needs.
  package static func tick(_ value: Double, _ all: [Double]) -> String {
    let step = all.count > 1 ? abs(all[1] - all[0]) : max(abs(value), 1)
    var places = 0
    var s = step
    while s < 0.999 && places < 6 {
      s *= 10
      places += 1
    }
    return Format.fixed(value, places)
  }

  /// Colour for `fraction` of a limit: green at 0, amber at 0.5, red at 1 and above.
  package static func heat(_ fraction: Double, light: Double = 0) -> String {
    let f = max(0, min(1, fraction.isFinite ? fraction : 1))
    let stops: [(Double, (Double, Double, Double))] = [
      (0, (26, 152, 80)), (0.5, (254, 224, 139)), (1, (215, 48, 39)),
    ]
    var i = 0
    while i < stops.count - 2 && f > stops[i + 1].0 { i += 1 }
    let (a, ca) = stops[i]
    let (b, cb) = stops[i + 1]
    let t = (f - a) / (b - a)
    func mix(_ x: Double, _ y: Double) -> Int { Int(((x + (y - x) * t) * (1 - light) + 255 * light).rounded()) }
    return rgb(mix(ca.0, cb.0), mix(ca.1, cb.1), mix(ca.2, cb.2))
  }

  package static func rgb(_ r: Int, _ g: Int, _ b: Int) -> String {
    let hex = Array("0123456789abcdef")
    var s = "#"
    for v in [r, g, b] {
      let c = max(0, min(255, v))
      s.append(hex[c >> 4])
      s.append(hex[c & 15])
    }
    return s
  }
}

/// HTML text.
package enum HTML {
  /// `s` for HTML text or an attribute: markup characters as entities,
  /// and what does not print escaped as `Quote.printable` shows it.
  package static func escape(_ s: String) -> String {
    var out = ""
    for ch in Quote.printable(s) {
      switch ch {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(ch)
      }
    }
    return out
  }
}
