//! The digits example's training, shortened: the loss must fall and the accuracy must
//! beat chance (10 %) by far.

#[path = "../examples/digits/mlp.rs"]
#[allow(dead_code)]
mod mlp;

use rand::SeedableRng;

#[test]
fn digits_mlp_learns_on_a_subset() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/digits.csv.gz");
    let data = mlp::load_digits(&path).expect("the data file ships with the repository");
    assert_eq!((data.x.shape(), data.y.len()), (&[1797usize, 64][..], 1797));
    let (train_idx, test_idx) = mlp::stratified_split(&data.y, 0.2, 3);
    let train_idx = &train_idx[..600];
    let x = data.x.view().into_dyn();
    let (x_train, x_test) = (
        x.index_select(0, train_idx).unwrap(),
        x.index_select(0, &test_idx).unwrap(),
    );
    let pick = |idx: &[isize]| idx.iter().map(|&i| data.y[i as usize]).collect::<Vec<_>>();
    let (y_train, y_test) = (pick(train_idx), pick(&test_idx));
    let scaled = mlp::standardise(&x_train, &[&x_test]);
    let y1h = mlp::one_hot(&y_train).into_dyn();
    let cfg = mlp::Config {
        epochs: 10,
        hidden: 64,
        ..Default::default()
    };
    let mut model = mlp::Mlp::new(cfg.hidden, cfg.seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let losses: Vec<f32> = (0..cfg.epochs)
        .map(|_| {
            model
                .epoch(&scaled[0], &y1h, &cfg, &mut rng, |_, _| {})
                .loss
        })
        .collect();
    assert!(losses.iter().all(|l| l.is_finite()), "{losses:?}");
    assert!(
        losses[cfg.epochs - 1] < 0.5 * losses[0],
        "loss must fall: {losses:?}"
    );
    let pred = model.predict(&scaled[1]);
    let acc = pred.iter().zip(&y_test).filter(|(p, t)| p == t).count() as f32 / y_test.len() as f32;
    assert!(
        acc > 0.8,
        "test accuracy {acc} should beat chance (0.1) by far"
    );
}
