import NIOCore

/// The web files in `Sources/PanelServe/Web/`, compiled into the binary
/// (SwiftPM's `embedInCode`): the installed `panelctl` serves them with
/// nothing beside it.
public enum WebFiles {
  /// One file: where it is served and as what.
  public struct File: Sendable {
    public let path: String
    public let contentType: String
    public let bytes: [UInt8]
  }

  public static let all: [File] = [
    File(path: "/", contentType: html, bytes: PackageResources.dashboard_html),
    File(path: "/dashboard.js", contentType: javascript, bytes: PackageResources.dashboard_js),
    File(path: "/dashboard.css", contentType: css, bytes: PackageResources.dashboard_css),
    File(path: "/forcepanel.js", contentType: javascript, bytes: PackageResources.forcepanel_js),
    File(path: "/demo", contentType: html, bytes: PackageResources.demo_html),
    File(path: "/demo.js", contentType: javascript, bytes: PackageResources.demo_js),
    File(path: "/demo.css", contentType: css, bytes: PackageResources.demo_css),
  ]

  static let html = "text/html; charset=utf-8"
  static let javascript = "text/javascript; charset=utf-8"
  static let css = "text/css; charset=utf-8"
}
