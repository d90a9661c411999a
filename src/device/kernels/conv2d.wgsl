// Direct 2-D convolution (PyTorch's conv2d, a cross-correlation): one thread per
// output element (n, o, oh, ow) sums over its group's C / groups input channels and
// the kH x kW window, reading input, weight and bias through their strides.
//
// params: 0 total outputs, 1 N, 2 C, 3 H, 4 W, 5 O, 6 channels per group, 7 kH, 8 kW,
//         9 OH, 10 OW, 11-12 stride, 13-14 padding, 15-16 dilation, 17 O per group,
//         18 has bias, 19 input offset, 20-23 input strides, 24 weight offset,
//         25-28 weight strides, 29 bias offset, 30 bias stride

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read> x: array<{{T}}>;
@group(0) @binding(2) var<storage, read> w: array<{{T}}>;
@group(0) @binding(3) var<storage, read> bias: array<{{T}}>;
@group(0) @binding(4) var<storage, read_write> y: array<{{T}}>;

{{HELPERS}}

fn pi(i: u32) -> i32 {
    return bitcast<i32>(params[i]);
}

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let idx = flat_group(wid, nwg) * 256u + lid;
    if (idx >= params[0]) {
        return;
    }
    let oh_n = params[9];
    let ow_n = params[10];
    let o_n = params[5];
    let ow = idx % ow_n;
    let oh = (idx / ow_n) % oh_n;
    let o = (idx / (ow_n * oh_n)) % o_n;
    let n = idx / (ow_n * oh_n * o_n);
    let cg = params[6];
    let kh = params[7];
    let kw = params[8];
    let h = i32(params[3]);
    let wd = i32(params[4]);
    let grp = o / params[17];
    var acc = 0.0;
    if (params[18] == 1u) {
        acc = {{LOAD}}(bias[u32(pi(29) + i32(o) * pi(30))]);
    }
    let xbase = pi(19) + i32(n) * pi(20);
    let wbase = pi(24) + i32(o) * pi(25);
    for (var c = 0u; c < cg; c += 1u) {
        let xc = xbase + i32(grp * cg + c) * pi(21);
        let wc = wbase + i32(c) * pi(26);
        for (var i = 0u; i < kh; i += 1u) {
            let ih = i32(oh * params[11] + i * params[15]) - i32(params[13]);
            if (ih < 0 || ih >= h) {
                continue;
            }
            for (var j = 0u; j < kw; j += 1u) {
                let iw = i32(ow * params[12] + j * params[16]) - i32(params[14]);
                if (iw < 0 || iw >= wd) {
                    continue;
                }
                let xv = {{LOAD}}(x[u32(xc + ih * pi(22) + iw * pi(23))]);
                let wv = {{LOAD}}(w[u32(wc + i32(i) * pi(27) + i32(j) * pi(28))]);
                acc += xv * wv;
            }
        }
    }
    y[idx] = {{STORE}}(acc);
}
