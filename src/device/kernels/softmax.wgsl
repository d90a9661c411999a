// softmax / log_softmax along one axis of a strided input, written row-major.
// A "row" is the L elements along the axis for one index of the other (kept) axes.
//
// params: 0 rows, 1 L, 2 kr, 3 input offset, 4 input axis stride, 5 output axis
//         stride, 6 log (0/1), 7.. kept shape[kr], input kept strides[kr],
//         output kept strides[kr]
//
// main_group: one workgroup per row (max, sum of exp, write: each a strided loop and
//             a tree in workgroup memory). main_thread: one thread per short row.

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<{{T}}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{T}}>;

{{HELPERS}}

{{EXP}}

fn max_nan(a: f32, b: f32) -> f32 {
    if (is_nan(a)) { return a; }
    if (is_nan(b)) { return b; }
    return max(a, b);
}

// Input and output offsets of row m.
fn row_offsets(m: u32) -> vec2<i32> {
    let kr = params[2];
    var rem = m;
    var off = vec2<i32>(bitcast<i32>(params[3]), 0);
    for (var d = kr; d > 0u; d -= 1u) {
        let len = params[6u + d];
        let i = i32(rem % len);
        rem = rem / len;
        off += i * vec2<i32>(bitcast<i32>(params[6u + kr + d]), bitcast<i32>(params[6u + 2u * kr + d]));
    }
    return off;
}

fn value(x: f32, mx: f32, s: f32) -> f32 {
    if (params[6] == 1u) {
        return x - mx - log(s);
    }
    return exp_f(x - mx) / s;
}

var<workgroup> red: array<f32, 256>;

fn tree(lid: u32, v: f32, is_max: bool) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) {
            if (is_max) {
                red[lid] = max_nan(red[lid], red[lid + s]);
            } else {
                red[lid] = red[lid] + red[lid + s];
            }
        }
        workgroupBarrier();
    }
    let out = red[0];
    workgroupBarrier();
    return out;
}

@compute @workgroup_size(256)
fn main_group(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row = flat_group(wid, nwg);
    if (row >= params[0]) {
        return;
    }
    let l = params[1];
    let off = row_offsets(row);
    let si = bitcast<i32>(params[4]);
    let so = bitcast<i32>(params[5]);
    var mx = -inf();
    for (var j = lid; j < l; j += 256u) {
        mx = max_nan(mx, {{LOAD}}(src[u32(off.x + i32(j) * si)]));
    }
    mx = tree(lid, mx, true);
    var s = 0.0;
    for (var j = lid; j < l; j += 256u) {
        s += exp_f({{LOAD}}(src[u32(off.x + i32(j) * si)]) - mx);
    }
    s = tree(lid, s, false);
    for (var j = lid; j < l; j += 256u) {
        dst[u32(off.y + i32(j) * so)] = {{STORE}}(value({{LOAD}}(src[u32(off.x + i32(j) * si)]), mx, s));
    }
}

@compute @workgroup_size(256)
fn main_thread(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row = flat_group(wid, nwg) * 256u + lid;
    if (row >= params[0]) {
        return;
    }
    let l = params[1];
    let off = row_offsets(row);
    let si = bitcast<i32>(params[4]);
    let so = bitcast<i32>(params[5]);
    var mx = -inf();
    for (var j = 0u; j < l; j += 1u) {
        mx = max_nan(mx, {{LOAD}}(src[u32(off.x + i32(j) * si)]));
    }
    var s = 0.0;
    for (var j = 0u; j < l; j += 1u) {
        s += exp_f({{LOAD}}(src[u32(off.x + i32(j) * si)]) - mx);
    }
    for (var j = 0u; j < l; j += 1u) {
        dst[u32(off.y + i32(j) * so)] = {{STORE}}(value({{LOAD}}(src[u32(off.x + i32(j) * si)]), mx, s));
    }
}
