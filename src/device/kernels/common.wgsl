// Helpers shared by every kernel (prepended to each shader).
//
// NaN and infinity are tested and made through their bit patterns: WGSL lets an
// implementation assume float values are finite, so `x != x` may be folded away.

const NAN_BITS: u32 = 0x7fc00000u;
const INF_BITS: u32 = 0x7f800000u;

fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn nan() -> f32 {
    return bitcast<f32>(NAN_BITS);
}

fn inf() -> f32 {
    return bitcast<f32>(INF_BITS);
}

// Flat index of the workgroup in a dispatch folded into x and y (more workgroups than
// one dimension allows).
fn flat_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}
