//! The `digits` and `mnist_cnn` examples' training, shortened: the loss must fall and
//! the accuracy must beat chance (10 %) by far.

#[path = "../examples/mnist_cnn/cnn.rs"]
mod cnn;
#[path = "../examples/digits/data.rs"]
#[allow(dead_code)]
mod data;
#[path = "../examples/digits/mlp.rs"]
mod mlp;

use rand::SeedableRng;

#[test]
fn digits_mlp_learns_on_a_subset() {
    let d =
        data::load_digits(&data::default_path()).expect("the data file ships with the repository");
    assert_eq!((d.x.shape(), d.y.len()), (&[1797usize, 64][..], 1797));
    let split = data::split(&d, 3, Some(600));
    let scaled = data::standardise(&split.x_train, &[&split.x_test]);
    let cfg = mlp::Config {
        epochs: 10,
        hidden: 64,
        ..Default::default()
    };
    let mut model = mlp::Mlp::new(cfg.hidden, cfg.lr, cfg.seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let stats: Vec<mlp::EpochStats> = (0..cfg.epochs)
        .map(|_| {
            model
                .epoch(&scaled[0], &split.y_train, &cfg, &mut rng, |_, _| {})
                .unwrap()
        })
        .collect();
    let losses: Vec<f32> = stats.iter().map(|s| s.loss).collect();
    assert!(stats[cfg.epochs - 1].train_accuracy > 0.9);
    assert!(losses.iter().all(|l| l.is_finite()), "{losses:?}");
    assert!(
        losses[cfg.epochs - 1] < 0.5 * losses[0],
        "loss must fall: {losses:?}"
    );
    let acc = data::accuracy(&model.predict(&scaled[1]), &split.y_test);
    assert!(
        acc > 0.8,
        "test accuracy {acc} should beat chance (0.1) by far"
    );
}

#[test]
fn digits_cnn_learns_on_a_subset() {
    let d =
        data::load_digits(&data::default_path()).expect("the data file ships with the repository");
    let split = data::split(&d, 5, Some(500));
    let scaled = data::standardise(&split.x_train, &[&split.x_test]);
    let (x_train, x_test) = (cnn::images(&scaled[0]), cnn::images(&scaled[1]));
    assert_eq!(x_train.shape(), &[500, 1, 8, 8]);
    let cfg = cnn::Config {
        epochs: 10,
        channels: 16,
        ..Default::default()
    };
    let mut model = cnn::Cnn::new(&cfg, 500usize.div_ceil(cfg.batch));
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let losses: Vec<f32> = (0..cfg.epochs)
        .map(|_| {
            model
                .epoch(&x_train, &split.y_train, &cfg, &mut rng)
                .unwrap()
        })
        .collect();
    assert!(losses.iter().all(|l| l.is_finite()), "{losses:?}");
    assert!(
        losses[cfg.epochs - 1] < 0.5 * losses[0],
        "loss must fall: {losses:?}"
    );
    let acc = data::accuracy(&model.predict(&x_test), &split.y_test);
    assert!(
        acc > 0.8,
        "test accuracy {acc} should beat chance (0.1) by far"
    );
}
