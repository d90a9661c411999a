// Reductions (sum, mean, max, min, argmax, argmin) over any set of axes of a strided
// input. Output m reduces L elements: the input element j of output m sits at
//   offset + kept(m) + reduced(j)
// where kept / reduced unravel m / j over the kept / reduced axes (row-major, so j is
// the flat index the CPU's argmax reports).
//
// params: 0 M, 1 L, 2 C (chunks per output), 3 CH (chunk length), 4 kr, 5 rr,
//         6 offset, 7 count (elements per output of the whole reduction, for mean),
//         8.. kept shape[kr], kept strides[kr], reduced shape[rr], reduced strides[rr]
//
// main_group: one workgroup per (output, chunk), a tree in workgroup memory; writes
//             dst[m * C + c] (a partial when C > 1, reduced again by the next pass).
// main_thread: one thread per output, a loop over all L (short reductions, or ones
//             whose outputs are adjacent in memory so neighbouring threads coalesce).

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<{{SRC}}>;
@group(0) @binding(2) var<storage, read> src_idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<{{DST}}>;
@group(0) @binding(4) var<storage, read_write> dst_idx: array<u32>;

{{HELPERS}}

struct Acc {
    v: {{ACC}},
    i: u32,
}

fn combine(a: Acc, b: Acc) -> Acc {
    {{COMBINE}}
}

fn identity() -> Acc {
    return Acc({{IDENTITY}}, 0xffffffffu);
}

fn kept_offset(m: u32) -> i32 {
    let kr = params[4];
    var rem = m;
    var off = bitcast<i32>(params[6]);
    for (var d = kr; d > 0u; d -= 1u) {
        let len = params[7u + d];
        off += i32(rem % len) * bitcast<i32>(params[7u + kr + d]);
        rem = rem / len;
    }
    return off;
}

fn reduced_offset(j: u32) -> i32 {
    let kr = params[4];
    let rr = params[5];
    let base = 7u + 2u * kr;
    var rem = j;
    var off = 0;
    for (var d = rr; d > 0u; d -= 1u) {
        let len = params[base + d];
        off += i32(rem % len) * bitcast<i32>(params[base + rr + d]);
        rem = rem / len;
    }
    return off;
}

fn load(moff: i32, j: u32) -> Acc {
    let p = u32(moff + reduced_offset(j));
    return Acc({{LOAD}}(src[p]), {{INDEX}});
}

fn write(o: u32, a: Acc) {
    let count = params[7];
    dst[o] = {{FINAL}};
    dst_idx[o] = a.i;
}

var<workgroup> sv: array<{{ACC}}, 256>;
var<workgroup> si: array<u32, 256>;

@compute @workgroup_size(256)
fn main_group(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let g = flat_group(wid, nwg);
    let chunks = params[2];
    if (g >= params[0] * chunks) {
        return;
    }
    let m = g / chunks;
    let start = (g % chunks) * params[3];
    let end = min(params[1], start + params[3]);
    let moff = kept_offset(m);
    var acc = identity();
    for (var j = start + lid; j < end; j += 256u) {
        acc = combine(acc, load(moff, j));
    }
    sv[lid] = acc.v;
    si[lid] = acc.i;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) {
            let r = combine(Acc(sv[lid], si[lid]), Acc(sv[lid + s], si[lid + s]));
            sv[lid] = r.v;
            si[lid] = r.i;
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        write(g, Acc(sv[0], si[0]));
    }
}

@compute @workgroup_size(256)
fn main_thread(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let m = flat_group(wid, nwg) * 256u + lid;
    if (m >= params[0]) {
        return;
    }
    let moff = kept_offset(m);
    var acc = identity();
    for (var j = 0u; j < params[1]; j += 1u) {
        acc = combine(acc, load(moff, j));
    }
    write(m, acc);
}
