/// How far a contact's own force reaches on a grid: for each offset of a
/// cell from the contact's peak cell (columns and rows apart, 0...`size`
/// - 1 each way), the largest share (Q16 of a cell under the press) a
/// press anywhere in the peak cell puts on that cell, from the panel's
/// contact model — the learnt response's kernel, or the radial spreading.
///
/// A contact holds (freezes) the baselines of the cells it loads: a cell
/// its model gives less than one noise of the contact's force carries
/// nothing of the press worth protecting, and held for as long as a
/// finger rests (minutes) its baseline would miss the wander it is there
/// to follow (the cells two or three pitches away then read several
/// noises high at once, and their sums make false touches). Each row of
/// the table falls with the columns (made so at setup), so a row's held
/// cells are one run around the peak.
///
/// Without a contact model every cell within the freeze radius is held.
/// Allocation-free; per contact and row a few multiplications.
public struct HoldReach: Sendable {
  /// Offsets up to 7 cells each way (the freeze radius is capped to it).
  public static let size = 8
  /// `share[rows * size + columns]`, Q16.
  var share: InlineArray<64, Int32> = InlineArray(repeating: 65536)
  /// Whether a contact model filled the table (otherwise every cell within
  /// the radius is held, and `columns` is not asked).
  public private(set) var known = false

  public init() {}

  /// The table for `finder`'s model, up to `radius` cells each way.
  init(_ finder: inout ContactFinder, radius: Int) {
    let n = min(radius, HoldReach.size - 1)
    for dr in 0...n {
      var outer: Int32 = 0
      for dc in stride(from: n, through: 0, by: -1) {
        guard let s = finder.nearestShare(columns: dc, rows: dr) else { return }
        known = true
        outer = max(outer, Int32(truncatingIfNeeded: min(s, 65536)))
        share[dr &* HoldReach.size &+ dc] = outer
      }
    }
  }

  /// How many columns each side of the peak's column a contact of
  /// `force` holds in the row `rows` away, up to `radius` (both at most
  /// `size - 1`): the cells whose share of it is at least `sigma` (both mN
  /// Q10); -1 when not even the cell in the peak's column is.
  @inline(__always)
  func columns(rows: Int, force: Int64, sigma: Int64, radius: Int) -> Int {
    let row = rows &* HoldReach.size
    let need = sigma &<< 16
    var dc = -1
    while dc < radius && force &* Int64(share[row &+ dc &+ 1]) >= need { dc &+= 1 }
    return dc
  }
}

extension ContactFinder {
  /// The largest share (Q16) a press anywhere within half a pitch of a
  /// cell's centre puts on the cell `columns` and `rows` pitches from it
  /// (either side), from the learnt response's kernel or the radial
  /// spreading; nil when the finder has neither (or no grid).
  mutating func nearestShare(columns dc: Int, rows dr: Int) -> Int64? {
    guard pitch > 0 else { return nil }
    if responseKnown {
      // The kernel's largest knot over the offsets such a press can have:
      // (2 dc - 1) / 2 to (2 dc + 1) / 2 pitches, in knots of 1/8 pitch;
      // beyond the table, its border's.
      let per = ResponseTable.knotsPerPitch
      let reach = ResponseTable.reach
      let u0 = min(max(0, (2 &* dc &- 1) &* per / 2), reach)
      let v0 = min(max(0, (2 &* dr &- 1) &* per / 2), reach)
      var best: Int64 = 0
      for j in v0...min(v0 &+ per, reach) {
        for i in u0...min(u0 &+ per, reach) {
          let a = max(response.kernel[ResponseTable.index(i, j)], response.kernel[ResponseTable.index(-i, j)])
          let b = max(response.kernel[ResponseTable.index(i, -j)], response.kernel[ResponseTable.index(-i, -j)])
          best = max(best, Int64(max(a, b)))
        }
      }
      return best << 1
    }
    guard spreadingKnown else { return nil }
    // The nearest such press: (|dc| - 1/2, |dr| - 1/2) pitches, at least 0;
    // in quarter pitches, Q16; beyond the profile's 3 pitches, its last knot.
    let a = Int64(max(0, 2 &* dc &- 1)) << 15
    let b = Int64(max(0, 2 &* dr &- 1)) << 15
    return spreadingShare(FixedMath.squareRoot(a &* a &+ b &* b) &* 4, beyond: Int64(spreading[12]))
  }
}
