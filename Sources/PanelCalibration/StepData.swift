import PanelFormats

/// What one step's recording says: each cell's level and noise, the
/// temperature, and (for holds) the level over time.
public struct StepData: Sendable {
  public var step: CalibrationStep
  public var frames: Int
  public var duration_s: Double
  /// Each cell's level, counts: the mean of the samples after outliers
  /// (spikes beyond 6 robust deviations of the median) are dropped.
  public var mean: [Double]
  /// Each cell's noise, counts, one standard deviation, from consecutive
  /// differences (insensitive to slow drift such as creep).
  public var sigma: [Double]
  /// Mean panel temperature, when the recording has it.
  public var temp_c: Double?
  /// Levels over consecutive stretches of `chunk_s` (creep of a hold).
  public var chunks: [Chunk]

  public struct Chunk: Sendable {
    /// Middle of the stretch, seconds from the first frame.
    public var t_s: Double
    public var mean: [Double]
  }

  /// Frames a step needs for a level and a noise estimate.
  public static let minimumFrames = 8
  static let chunk_s = 0.5

  /// Reads and summarises `step`'s recording in `session`.
  public static func read(_ step: CalibrationStep, session: CalibrationSession, board: Board) throws(FileError)
    -> StepData
  {
    let path = session.path(of: step)
    var reader = try RecordingReader(path: path)
    let n = reader.header.cellCount
    if n != board.cellCount {
      throw FileError(
        file: path, line: 1, field: "header",
        message: "\(step.name) has \(n) raw columns, board \(Quote.text(board.name)) has \(board.cellCount) cells")
    }
    var samples = [[Int32]](repeating: [], count: n)
    var times: [Int64] = []
    var temperatureSum = 0.0
    var temperatures = 0
    let row = UnsafeMutableBufferPointer<Int32>.allocate(capacity: n)
    defer { row.deallocate() }
    while let r = try reader.next(into: row) {
      for k in 0..<n { samples[k].append(row[k]) }
      times.append(r.tUs)
      if let c = r.temperatureC {
        temperatureSum += c
        temperatures += 1
      }
    }
    if times.count < minimumFrames {
      throw FileError(
        file: path, message: "\(step.name) has \(times.count) frames; a step needs at least \(minimumFrames)")
    }
    var mean: [Double] = []
    var sigma: [Double] = []
    for k in 0..<n {
      let (m, s) = robustLevel(samples[k][...])
      mean.append(m)
      sigma.append(s)
    }
    // Chunks of about chunk_s.
    let t0 = times[0]
    let span = Double(times[times.count - 1] - t0) / 1e6
    var chunks: [Chunk] = []
    // At most one chunk per sample: a chunk needs three samples anyway.
    let count = max(1, min(times.count, Int(saturating: span / chunk_s)))
    if count >= 2 {
      for c in 0..<count {
        let lo = c * times.count / count
        let hi = (c + 1) * times.count / count
        guard hi - lo >= 3 else { continue }
        let mid = Double(times[(lo + hi) / 2] - t0) / 1e6
        chunks.append(Chunk(t_s: mid, mean: (0..<n).map { robustLevel(samples[$0][lo..<hi]).mean }))
      }
    }
    return StepData(
      step: step, frames: times.count, duration_s: span, mean: mean, sigma: sigma,
      temp_c: temperatures > 0 ? temperatureSum / Double(temperatures) : nil, chunks: chunks)
  }

  /// Mean without outliers, and noise from consecutive differences.
  static func robustLevel(_ x: ArraySlice<Int32>) -> (mean: Double, sigma: Double) {
    let sorted = x.sorted()
    let median = Double(sorted[sorted.count / 2])
    let deviations = sorted.map { abs(Double($0) - median) }.sorted()
    let mad = deviations[deviations.count / 2] * 1.4826
    let limit = max(6 * mad, 3)
    var sum = 0.0
    var kept = 0
    var differences = 0.0
    var pairs = 0
    var previous: Double?
    for v in x {
      let d = Double(v)
      guard abs(d - median) <= limit else {
        previous = nil
        continue
      }
      sum += d
      kept += 1
      if let p = previous {
        differences += (d - p) * (d - p)
        pairs += 1
      }
      previous = d
    }
    let mean = kept > 0 ? sum / Double(kept) : median
    let sigma = pairs > 0 ? (differences / Double(pairs) / 2).squareRoot() : 0
    return (mean, sigma)
  }
}
