import NIOCore

/// The web files in `Sources/PanelWeb/Web/`, compiled into the binary
/// (SwiftPM's `embedInCode`): the installed `panelctl` serves them with
/// nothing beside it.
package enum WebFiles {
  /// One file: where it is served and as what.
  package struct File: Sendable {
    package let path: String
    package let contentType: String
    package let bytes: [UInt8]
  }

  package static let all: [File] = [
    File(path: "/", contentType: html, bytes: PackageResources.dashboard_html),
    File(path: "/dashboard.js", contentType: javascript, bytes: PackageResources.dashboard_js),
    File(path: "/dashboard.css", contentType: css, bytes: PackageResources.dashboard_css),
    File(path: "/forcepanel.js", contentType: javascript, bytes: PackageResources.forcepanel_js),
    File(path: "/forcepanel.global.js", contentType: javascript, bytes: ClassicScript.make(from: PackageResources.forcepanel_js)),
    File(path: "/forcepanel.d.ts", contentType: typescript, bytes: PackageResources.forcepanel_d_ts),
    File(path: "/demo", contentType: html, bytes: PackageResources.demo_html),
    File(path: "/demo.js", contentType: javascript, bytes: PackageResources.demo_js),
    File(path: "/demo.css", contentType: css, bytes: PackageResources.demo_css),
  ]

  static let html = "text/html; charset=utf-8"
  static let javascript = "text/javascript; charset=utf-8"
  static let css = "text/css; charset=utf-8"
  /// TypeScript's declarations: text that no browser runs.
  static let typescript = "text/plain; charset=utf-8"
}

/// forcepanel.js as a classic script (`<script src=".../forcepanel.global.js">`):
/// the module's text in a function, its exports gathered into the global
/// `forcepanel`, and `import.meta.url` read as the script's own address
/// (`document.currentScript`). Made from the module when the server
/// starts, so the two never differ.
package enum ClassicScript {
  /// The global the exports become.
  package static let global = "forcepanel"

  package static func make(from module: [UInt8]) -> [UInt8] {
    var exports: [String] = []
    var body: [String] = []
    for line in String(decoding: module, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
      var l = String(line)
      for keyword in ["class ", "const ", "function ", "let "] where l.hasPrefix("export " + keyword) {
        l.removeFirst("export ".count)
        let name = l.dropFirst(keyword.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
        exports.append(String(name))
      }
      body.append(l.replacing("import.meta.url", with: "document.currentScript ? document.currentScript.src : location.href"))
    }
    let text =
      "// forcepanel.global.js: forcepanel.js as a classic script; its exports are the global `\(global)`.\n"
      + "// Made by panelctl serve from /forcepanel.js: the same code.\n"
      + "(function () {\n\"use strict\";\n" + body.joined(separator: "\n")
      + "\nglobalThis.\(global) = Object.freeze({ \(exports.joined(separator: ", ")) });\n})();\n"
    return Array(text.utf8)
  }
}
