//! Unit tests of the engine kernels, small enough for Miri
//! (`cargo +nightly miri test --lib iter::`): every path (unit stride, broadcast,
//! strided, negative strides, tiled transposes, in place, slice kernels) against a naive
//! index computation.

use super::*;

/// Element of a 2-D layout at `(i, j)`.
fn at(buf: &[i32], strides: &[isize], off: usize, i: usize, j: usize) -> i32 {
    buf[(off as isize + i as isize * strides[0] + j as isize * strides[1]) as usize]
}

#[test]
fn map_and_zip_cover_every_path() {
    let (r, c) = (33usize, 35usize); // over TILE, ragged tiles
    let a: Vec<i32> = (0..(r * c) as i32).collect();
    let b: Vec<i32> = (0..(r * c) as i32).map(|x| x * 7 - 3).collect();
    let row: Vec<i32> = (0..c as i32).collect();
    let layouts: [(&[isize], usize); 3] = [
        (&[c as isize, 1], 0),             // row-major
        (&[1, r as isize], 0),             // transposed (column-major)
        (&[-(c as isize), -1], r * c - 1), // both axes flipped
    ];
    for (sa, oa) in layouts {
        for (sb, ob) in layouts {
            let got = zip_new(&[r, c], Src::new(&a, sa, oa), Src::new(&b, sb, ob), |x, y| x * 3 + y);
            for i in 0..r {
                for j in 0..c {
                    let want = at(&a, sa, oa, i, j) * 3 + at(&b, sb, ob, i, j);
                    assert_eq!(got[i * c + j], want, "{sa:?} {sb:?} at ({i}, {j})");
                }
            }
        }
        let m = map_new(&[r, c], Src::new(&a, sa, oa), |x| x - 1);
        let s = map_new_slices(
            &[r, c],
            Src::new(&a, sa, oa),
            1,
            |x| x + 5,
            |src: &[i32], dst: &mut [i32]| {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = s + 5;
                }
            },
        );
        let bc = zip_new(&[r, c], Src::new(&a, sa, oa), Src::new(&row, &[0, 1], 0), |x, y| x - y);
        for i in 0..r {
            for j in 0..c {
                let x = at(&a, sa, oa, i, j);
                assert_eq!(
                    (m[i * c + j], s[i * c + j], bc[i * c + j]),
                    (x - 1, x + 5, x - j as i32)
                );
            }
        }
    }
    // Strided (step 2), broadcast (stride 0) and flipped inputs of the slice kernel
    // are gathered in chunks; the kernel must still see every element.
    let plus5 = |src: &[i32], dst: &mut [i32]| {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s + 5;
        }
    };
    let cases: [(&[isize], usize, [usize; 2]); 3] = [
        (&[1, 0], 0, [r, 300]),
        (&[c as isize, 2], 1, [r, c / 2]),
        (&[0, -1], c - 1, [2, c]),
    ];
    for (st, off, shape) in cases {
        let s = map_new_slices(&shape, Src::new(&a, st, off), 1, |x| x + 5, plus5);
        for i in 0..shape[0] {
            for j in 0..shape[1] {
                assert_eq!(s[i * shape[1] + j], at(&a, st, off, i, j) + 5, "{st:?} at ({i}, {j})");
            }
        }
    }
    let cond: Vec<bool> = (0..c).map(|j| j % 3 == 0).collect();
    let w = zip3_new(
        &[r, c],
        Src::new(&cond, &[0, 1], 0),
        Src::new(&a, &[c as isize, 1], 0),
        Src::new(&b, &[1, r as isize], 0),
        |k, x, y| if k { x } else { y },
    );
    for i in 0..r {
        for j in 0..c {
            let want = if j % 3 == 0 { a[i * c + j] } else { b[j * r + i] };
            assert_eq!(w[i * c + j], want);
        }
    }
}

#[test]
fn in_place_zip_with_transposed_destination_and_source() {
    let (r, c) = (34usize, 40usize);
    let b: Vec<i32> = (0..(r * c) as i32).collect();
    for (so, sb) in [
        ([c as isize, 1], [1, r as isize]),
        ([1, r as isize], [c as isize, 1]),
        ([1, r as isize], [1, r as isize]),
    ] {
        let mut out: Vec<i32> = vec![1; r * c];
        crate::iter::zip_into(&[r, c], Dst::new(&mut out, &so, 0), Src::new(&b, &sb, 0), |x, y| {
            *x += y
        });
        for i in 0..r {
            for j in 0..c {
                assert_eq!(at(&out, &so, 0, i, j), 1 + at(&b, &sb, 0, i, j));
            }
        }
    }
    let mut out = vec![0; 6];
    crate::iter::for_each_mut(&[2, 3], Dst::new(&mut out, &[1, 2], 0), |x| *x += 4);
    assert_eq!(out, vec![4; 6]);
}

#[test]
fn empty_and_scalar_shapes() {
    let a = [5i32];
    assert_eq!(map_new(&[], Src::new(&a, &[], 0), |x| x * 2), vec![10]);
    assert!(map_new(&[0, 3], Src::new(&a, &[0, 0], 0), |x| x).is_empty());
    assert_eq!(
        zip_new(&[3], Src::new(&a, &[0], 0), Src::new(&a, &[0], 0), |x, y| x + y),
        vec![10; 3]
    );
}

#[test]
fn contiguous_fast_path_serial_and_split() {
    let a: Vec<i32> = (0..100).collect();
    let b: Vec<i32> = (0..100).map(|x| 2 * x).collect();
    let want: Vec<i32> = (0..100).map(|x| 3 * x).collect();
    assert_eq!(zip_contig(&a, &b, 1, |x, y| x + y), want);
    let split = crate::iter::with_parallel_threshold(0, || zip_contig(&a, &b, 1, |x, y| x + y));
    assert_eq!(split, want);
    // `zip_new` takes the fast path for row-major operands, whatever their offset.
    let (shape, st) = ([10, 9], [9, 1]);
    let got = zip_new(&shape, Src::new(&a, &st, 1), Src::new(&b, &st, 10), |x, y| x + y);
    assert_eq!(got, (0..90).map(|i| (i + 1) + 2 * (i + 10)).collect::<Vec<i32>>());
}

/// A binary op with one transposed operand and an output large enough to be streamed
/// (tiles staged with the in-register transposes, rows written with streaming stores),
/// f32 and f64, against the naive index computation.
#[test]
#[cfg_attr(miri, ignore = "32 MiB output; the streamed path never runs under Miri")]
fn transposed_operand_with_a_streamed_output() {
    fn one<T: Copy + Send + Sync + PartialEq + std::fmt::Debug + std::ops::Add<Output = T>>(make: impl Fn(usize) -> T) {
        let (r, c) = (2051usize, 4099usize);
        assert!(crate::iter::stream::should_stream::<T>(r * c));
        let a: Vec<T> = (0..r * c).map(&make).collect();
        let b: Vec<T> = (0..r * c).map(|i| make(i * 3 + 1)).collect();
        // a row-major [r, c]; b a [c, r] buffer viewed transposed.
        let got = zip_new(
            &[r, c],
            Src::new(&a, &[c as isize, 1], 0),
            Src::new(&b, &[1, r as isize], 0),
            |x, y| x + y,
        );
        for i in (0..r).step_by(7) {
            for j in 0..c {
                assert_eq!(got[i * c + j], a[i * c + j] + b[j * r + i], "({i}, {j})");
            }
        }
    }
    one(|i| (i % 1000) as f32 * 0.25);
    one(|i| (i % 977) as f64 - 3.5);
}
