/// Path helpers for files that name other files.
public enum Paths {
  /// `path` as is when absolute, else relative to the directory of `file`.
  public static func resolve(_ path: String, relativeTo file: String) -> String {
    if path.hasPrefix("/") { return path }
    return directory(of: file) + path
  }

  /// The directory part of `file`, with a trailing slash ("" for none).
  public static func directory(of file: String) -> String {
    guard let slash = file.lastIndex(of: "/") else { return "" }
    return String(file[...slash])
  }
}
