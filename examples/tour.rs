//! A short tour of what ferrotensor does today: creation, views, printing, ownership.
//!
//! Run: `cargo run --release --example tour`

use ferrotensor::prelude::*;

fn main() -> Result<()> {
    // Creation: shapes given as arrays give fixed rank.
    let a = Tensor::<i32>::arange(12).into_shape([3, 4])?;
    println!("a =\n{a}\n");

    // Views change only the layout: no data is copied.
    let v = a.slice(s![1.., ..;-2]);
    println!(
        "a[1:, ::-2] =\n{v}   (shares memory: {})\n",
        v.buffer().as_ptr() == a.buffer().as_ptr()
    );
    println!("a.T =\n{}\n", a.t());

    // Reshape gives a view when NumPy would, else a copy.
    let r = a.t().reshape([2, 6])?;
    println!("a.T.reshape(2, 6) =\n{r}   (view: {})\n", r.is_view());

    // Floats print exactly as NumPy prints them.
    let f = Tensor::from_vec(vec![1.0, 2.5, -3.25, 1e-9, 100.0, 0.123456789012], [2, 3])?;
    println!("f =\n{f}\n");
    println!("linspace(0, 1, 5) = {}", Tensor::linspace(0.0f32, 1.0, 5));

    // Ownership kinds convert cheaply.
    let shared = f.into_shared();
    let twin = shared.clone();
    println!(
        "\nshared clones point at the same memory: {}",
        shared.as_ptr() == twin.as_ptr()
    );
    let owned = shared.into_owned(); // copies: `twin` still shares the buffer
    println!(
        "into_owned of a shared buffer copied: {}",
        owned.as_ptr() != twin.as_ptr()
    );
    println!("\n{:?}", owned.t());
    Ok(())
}
