import HTTPTypes
import Hummingbird
import NIOCore
import PanelFirmware
import PanelServe

/// What every HTTP request meets before (and after) the routes:
///
/// - `Host` must name this server (`ServeAccess`), else 403;
/// - `GET` and `HEAD` go to the routes (a `HEAD` of every `GET` route,
///   with the same headers and no body); `OPTIONS` is a CORS preflight;
///   any other method on a path that exists is 405 with `Allow`, on one
///   that does not, 404;
/// - a 404 has a short body saying so;
/// - a request from a page of an allowed origin (`--allow-origin`) gets
///   `Access-Control-Allow-Origin` with that origin (`Vary: Origin`), so
///   that an integrator's page served elsewhere can import forcepanel.js
///   and read `/panel.json`.
struct Site<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
  typealias Context = BasicRequestContext
  let routes: Inner
  let access: ServeAccess
  /// Where `--static`'s folder is served (`/app`), if it is.
  let folder: String?

  static var allowedMethods: String { "GET, HEAD, OPTIONS" }

  func respond(to request: Request, context: Context) async throws -> Response {
    if let refusal = access.check(host: request.head.authority) {
      ServeLog.warn("refused request", "refused a request for \(Quote.text(request.uri.path)): \(refusal)")
      return PanelServer.text(.forbidden, refusal.description)
    }
    let origin = request.headers[.origin]
    let allowed = origin.flatMap(access.crossOrigin)
    var response: Response
    switch request.method {
    case .get, .head:
      if let folder, request.uri.path == folder {
        // The folder without its slash: its pages' relative links need it.
        response = Response.redirect(to: folder + "/", type: .permanent)
        break
      }
      response = try await routes.respond(to: request, context: context)
      if response.status == .notFound { response = Self.notFound(head: request.method == .head) }
    case .options:
      response = preflight(request, origin: origin, allowed: allowed)
    default:
      var head = request.head
      head.method = .head
      let probe = try await routes.respond(to: Request(head: head, body: .init(buffer: ByteBuffer())), context: context)
      if probe.status == .notFound {
        response = Self.notFound(head: false)
      } else {
        response = PanelServer.text(.methodNotAllowed, "\(request.method.rawValue) is not allowed here: \(Self.allowedMethods)")
        response.headers[.allow] = Self.allowedMethods
      }
    }
    if let allowed {
      response.headers[.accessControlAllowOrigin] = allowed
      response.headers[.vary] = "Origin"
    }
    return response
  }

  /// A CORS preflight: answered for an allowed origin (the methods, the
  /// headers asked for, Private Network Access's opt-in), refused for any
  /// other.
  func preflight(_ request: Request, origin: String?, allowed: String?) -> Response {
    guard allowed != nil else {
      let why =
        origin.map { "Origin \(Quote.text($0)) is not an allowed origin (--allow-origin)" }
        ?? "a preflight without an Origin"
      ServeLog.warn("refused preflight", "refused a cross-origin request for \(Quote.text(request.uri.path)): \(why)")
      return PanelServer.text(.forbidden, why)
    }
    var headers = HTTPFields()
    headers[.accessControlAllowMethods] = Self.allowedMethods
    if let asked = request.headers[.accessControlRequestHeaders] { headers[.accessControlAllowHeaders] = asked }
    headers[.accessControlMaxAge] = "7200"
    if request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] == "true" {
      headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
    }
    return Response(status: .noContent, headers: headers)
  }

  static func notFound(head: Bool) -> Response {
    let r = PanelServer.text(.notFound, "not found")
    return head ? r.createHeadResponse() : r
  }
}
