use crate::common::device;
use ferrotensor::prelude::*;

#[test]
fn smoke() {
    let Some(dev) = device() else { return };
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]).unwrap();
    let g = t.to_device(&dev).unwrap();
    assert_eq!(g.to_host().unwrap().to_vec(), t.to_vec());
    assert_eq!(g.t().to_host().unwrap().to_vec(), t.t().to_vec());
    let e = g.exp().to_host().unwrap().to_vec();
    println!("{e:?}");
    let s = (&g + &g).to_host().unwrap().to_vec();
    println!("{s:?}");
    let r = g.sum_axes(&[1], false).unwrap().to_host().unwrap().to_vec();
    println!("{r:?}");
    let a = g.argmax_axis(0, false).unwrap().to_host().unwrap().to_vec();
    println!("{a:?}");
    let c = g.cast::<i32>().unwrap().to_host().unwrap().to_vec();
    println!("{c:?} f16 {}", dev.supports_f16());
}
