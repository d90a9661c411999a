// Batched matrix product C[b] = A[b] @ B[b] over strided operands (any row/column
// strides, batch strides 0 where an operand is broadcast), tiled: each workgroup of
// 16 x 16 threads computes a 64 x 64 tile of C, each thread a 4 x 4 block, staging
// 16-deep slices of A and B in workgroup memory.
//
// params: 0 M, 1 N, 2 K, 3 batch rank r, 4 tiles along M, 5 tiles along N, 6 batches,
//         7 A offset, 8 A row stride, 9 A column stride,
//         10 B offset, 11 B row stride, 12 B column stride,
//         13.. batch shape[r], A batch strides[r], B batch strides[r]

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<{{T}}>;
@group(0) @binding(2) var<storage, read> b: array<{{T}}>;
@group(0) @binding(3) var<storage, read_write> c: array<{{T}}>;

{{HELPERS}}

const TILE: u32 = 64u;
const BK: u32 = 16u;

var<workgroup> tile_a: array<{{ACC}}, 1024>; // [BK][TILE]
var<workgroup> tile_b: array<{{ACC}}, 1024>; // [BK][TILE]

fn pi(i: u32) -> i32 {
    return bitcast<i32>(params[i]);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let m = params[0];
    let n = params[1];
    let k = params[2];
    let r = params[3];
    let tiles_m = params[4];
    let tiles_n = params[5];
    let g = flat_group(wid, nwg);
    if (g >= params[6] * tiles_m * tiles_n) {
        return;
    }
    let tn = g % tiles_n;
    let tm = (g / tiles_n) % tiles_m;
    let batch = g / (tiles_n * tiles_m);
    var aoff = pi(7);
    var boff = pi(10);
    var rem = batch;
    for (var d = r; d > 0u; d -= 1u) {
        let len = params[12u + d];
        let i = i32(rem % len);
        rem = rem / len;
        aoff += i * pi(12u + r + d);
        boff += i * pi(12u + 2u * r + d);
    }
    let ars = pi(8);
    let acs = pi(9);
    let brs = pi(11);
    let bcs = pi(12);
    let row0 = tm * TILE;
    let col0 = tn * TILE;
    let tx = lid3.x;
    let ty = lid3.y;
    var acc: array<array<{{ACC}}, 4>, 4>;
    for (var i = 0u; i < 4u; i += 1u) {
        for (var j = 0u; j < 4u; j += 1u) {
            acc[i][j] = {{ACC}}(0);
        }
    }
    for (var k0 = 0u; k0 < k; k0 += BK) {
        for (var q = 0u; q < 4u; q += 1u) {
            let e = lid + q * 256u;
            let ar = e / BK;
            let ak = e % BK;
            var v = {{ACC}}(0);
            if (row0 + ar < m && k0 + ak < k) {
                v = {{LOAD}}(a[u32(aoff + i32(row0 + ar) * ars + i32(k0 + ak) * acs)]);
            }
            tile_a[ak * TILE + ar] = v;
            let bk = e / TILE;
            let bc = e % TILE;
            var w = {{ACC}}(0);
            if (k0 + bk < k && col0 + bc < n) {
                w = {{LOAD}}(b[u32(boff + i32(k0 + bk) * brs + i32(col0 + bc) * bcs)]);
            }
            tile_b[bk * TILE + bc] = w;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < BK; kk += 1u) {
            var av: array<{{ACC}}, 4>;
            var bv: array<{{ACC}}, 4>;
            for (var i = 0u; i < 4u; i += 1u) {
                av[i] = tile_a[kk * TILE + ty * 4u + i];
                bv[i] = tile_b[kk * TILE + tx * 4u + i];
            }
            for (var i = 0u; i < 4u; i += 1u) {
                for (var j = 0u; j < 4u; j += 1u) {
                    acc[i][j] += av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i += 1u) {
        for (var j = 0u; j < 4u; j += 1u) {
            let gr = row0 + ty * 4u + i;
            let gc = col0 + tx * 4u + j;
            if (gr < m && gc < n) {
                c[(batch * m + gr) * n + gc] = {{STORE}}(acc[i][j]);
            }
        }
    }
}
