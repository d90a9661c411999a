// Element-wise map over {{N}} strided operands: dst[i] = op(src0[...], src1[...]).
//
// params: n, rank r, shape[r], then per operand: offset, strides[r] (i32).
// The output is row-major; operand k's element for flat index i is found by
// unravelling i over the shape and summing index * stride. Layouts come coalesced
// from the host, so a contiguous operand costs one division per element.

@group(0) @binding(0) var<storage, read> params: array<u32>;
{{BINDINGS}}

{{OPFN}}

fn operand_index(i: u32, k: u32) -> u32 {
    let r = params[1];
    let base = 2u + r + k * (r + 1u);
    var rem = i;
    var off = bitcast<i32>(params[base]);
    for (var d = r; d > 0u; d -= 1u) {
        let len = params[1u + d];
        off += i32(rem % len) * bitcast<i32>(params[base + d]);
        rem = rem / len;
    }
    return u32(off);
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = flat_group(wid, nwg) * 256u + lid;
    if (i >= params[0]) {
        return;
    }
    dst[i] = {{STORE}}(op({{ARGS}}));
}
