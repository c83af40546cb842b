//! The HYPERSTEAL_* environment variables set builder defaults; explicit calls win; bad values
//! are errors. One test function, because the environment is process-wide.

use hypersteal::{BuildError, Policy, ThreadPoolBuilder, Topology};

fn set(var: &str, value: &str) {
    // The only test in this binary: nothing reads the environment concurrently.
    std::env::set_var(var, value);
}

#[test]
fn environment_defaults_and_errors() {
    set("HYPERSTEAL_NUM_THREADS", "3");
    set("HYPERSTEAL_POLICY", "grr-m:window=4");
    set("HYPERSTEAL_TOPOLOGY", "ring");
    set("HYPERSTEAL_PIN", "off");
    let pool = ThreadPoolBuilder::new().build().unwrap();
    assert_eq!(pool.current_num_threads(), 3);
    assert_eq!(pool.policy(), Policy::GrrCombining { window: 4 });
    assert_eq!(pool.topology(), Topology::Ring);
    assert_eq!(pool.worker_core(0), None, "pinning is off");

    // Explicit builder calls win over the environment.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .policy(Policy::NearestNeighbor)
        .topology(Topology::Mesh)
        .build()
        .unwrap();
    assert_eq!(pool.current_num_threads(), 2);
    assert_eq!(pool.policy(), Policy::NearestNeighbor);
    assert_eq!(pool.topology(), Topology::Mesh);

    let env_err = |var: &str, value: &str| {
        set(var, value);
        let e = ThreadPoolBuilder::new().build().map(|_| ()).unwrap_err();
        std::env::remove_var(var);
        assert!(matches!(e, BuildError::Env { .. }), "{e:?}");
        e.to_string()
    };
    let e = env_err("HYPERSTEAL_NUM_THREADS", "many");
    assert!(
        e.contains("HYPERSTEAL_NUM_THREADS")
            && e.contains("\"many\"")
            && e.contains("0 (one per core) to 1024"),
        "{e}"
    );
    let e = env_err("HYPERSTEAL_POLICY", "fifo");
    assert!(
        e.contains("fifo") && e.contains("rp, nn, arr, grr, grr-m, sb, most-loaded"),
        "{e}"
    );
    let e = env_err("HYPERSTEAL_TOPOLOGY", "star");
    assert!(
        e.contains("star") && e.contains("hypercube, mesh, torus, ring, complete"),
        "{e}"
    );
    let e = env_err("HYPERSTEAL_PIN", "maybe");
    assert!(e.contains("maybe") && e.contains("true/false"), "{e}");
    let e = env_err("HYPERSTEAL_PLACEMENT", "numa");
    assert!(
        e.contains("HYPERSTEAL_PLACEMENT")
            && e.contains("numa")
            && e.contains("`hardware` or `os`"),
        "{e}"
    );

    // The claims directory is read only by pools that pin: then a file where a directory must
    // be, or an empty value, is an error naming the variable; `off` and a new directory are fine.
    let file = std::env::temp_dir().join(format!("hypersteal-env-test-{}", std::process::id()));
    std::fs::write(&file, b"").unwrap();
    let claims_err = |value: &std::path::Path| {
        set("HYPERSTEAL_PIN_CLAIMS", value.to_str().unwrap());
        let pinned = ThreadPoolBuilder::new()
            .num_threads(1)
            .pin_threads(true)
            .build();
        let unpinned = ThreadPoolBuilder::new()
            .num_threads(1)
            .pin_threads(false)
            .build();
        std::env::remove_var("HYPERSTEAL_PIN_CLAIMS");
        assert!(unpinned.is_ok(), "an unpinned pool claims nothing");
        pinned.map(|_| ()).err().map(|e| e.to_string())
    };
    let e = claims_err(&file).expect("a file is no claims directory");
    assert!(
        e.contains("HYPERSTEAL_PIN_CLAIMS") && e.contains("hypersteal-env-test"),
        "{e}"
    );
    let e = claims_err(std::path::Path::new(" ")).expect("an empty value is refused");
    assert!(
        e.contains("HYPERSTEAL_PIN_CLAIMS") && e.contains("`off`"),
        "{e}"
    );
    assert_eq!(claims_err(std::path::Path::new("off")), None);
    let dir = file.with_extension("claims");
    assert_eq!(claims_err(&dir), None, "a missing directory is created");
    assert!(dir.is_dir());
    std::fs::remove_file(&file).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    // Too many is an error about the variable, not about a builder call nobody made.
    set("HYPERSTEAL_NUM_THREADS", "99999");
    let e = ThreadPoolBuilder::new().build().map(|_| ()).unwrap_err();
    assert!(
        matches!(
            e,
            BuildError::Env {
                var: "HYPERSTEAL_NUM_THREADS",
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("HYPERSTEAL_NUM_THREADS") && msg.contains("99999") && msg.contains("1024"),
        "{msg}"
    );
}
