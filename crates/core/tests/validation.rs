//! GPU-free: what the planner accepts and refuses, at every boundary of the op's legal space.
//! Attribute values (overlay `attributeChecks`), tunable values (overlay `tunableLimits`: every
//! value inside renders WGSL that naga accepts, every value outside is refused naming the
//! tunable), hostile manifests (trailing text, duplicate bindings, deep derive chains, huge
//! intermediates) and device profiles below WebGPU's minimums.

use nbits_mlp_core::op::MlpShape;
use nbits_mlp_core::{AttrValue, DType, DeviceProfile, Manifest, PlanError, Planner, Tunables};

fn validate(wgsl: &str, what: &str) {
    nbits_mlp_core::render::validate_wgsl(wgsl)
        .unwrap_or_else(|e| panic!("{what}: WGSL does not validate:\n{e}\n{wgsl}"));
}

fn shape(k: usize, n: usize, rows: usize, bits: u32, block: usize) -> MlpShape {
    let mut s = MlpShape::new(k, n, rows);
    s.bits = bits;
    s.block_size = block;
    s
}

fn attr_error(e: PlanError) -> (String, String) {
    match e {
        PlanError::Attribute { name, message } => (name, message),
        other => panic!("expected an attribute error, got {other}"),
    }
}

#[test]
fn block_sizes_follow_matmulnbits_contract() {
    let planner = Planner::project(DeviceProfile::discrete_gpu());
    // Refused: not a power of two, or below 16 (blobs under 4 bytes, or not a multiple of 4, or
    // blocks the gemv's 32-code units cannot tile): each named in the error, whatever the bits.
    for bits in [2, 4, 8] {
        for block in [1, 2, 4, 6, 8, 12, 24, 48, 80, 96, 112, 144, 255] {
            let call = shape(256, 16, 1, bits, block).call();
            let (name, msg) = attr_error(planner.plan(&call, &Tunables::new()).unwrap_err());
            assert_eq!(name, "block_size", "bits {bits} block {block}: {msg}");
            assert!(
                msg.contains("power of two") && msg.contains(&format!("got {block}")),
                "{msg}"
            );
        }
        for block in [16, 32, 64, 128, 256, 512, 1024] {
            for rows in [1, 2, 17, 40] {
                let call = shape(200, 16, rows, bits, block).call();
                planner
                    .plan(&call, &Tunables::new())
                    .unwrap_or_else(|e| panic!("bits {bits} block {block} rows {rows}: {e}"));
            }
        }
    }
    let mut call = shape(256, 16, 1, 4, 32).call();
    for bad in [0i64, -32] {
        call.attrs.insert("block_size".into(), AttrValue::Int(bad));
        let (name, _) = attr_error(planner.plan(&call, &Tunables::new()).unwrap_err());
        assert_eq!(name, "block_size");
    }
}

#[test]
fn sizes_and_epsilon_are_checked_by_value() {
    let planner = Planner::project(DeviceProfile::discrete_gpu());
    let base = shape(64, 16, 1, 4, 32).call();
    for (attr, bad) in [
        ("K", AttrValue::Int(0)),
        ("K", AttrValue::Int(-64)),
        ("N", AttrValue::Int(0)),
        ("N", AttrValue::Int(-1)),
        ("N", AttrValue::Int(1 << 40)),
        ("epsilon", AttrValue::Float(f64::NAN)),
        ("epsilon", AttrValue::Float(-1e-5)),
        ("epsilon", AttrValue::Float(0.0)),
        ("epsilon", AttrValue::Float(f64::INFINITY)),
        ("epsilon", AttrValue::Float(1e-40)),
        ("epsilon", AttrValue::Float(1e39)),
    ] {
        let mut call = base.clone();
        call.attrs.insert(attr.into(), bad.clone());
        let (name, msg) = attr_error(planner.plan(&call, &Tunables::new()).unwrap_err());
        assert_eq!(name, attr, "{attr} = {bad:?}: {msg}");
    }
    for eps in [1e-5, 1e-12, 1.0, 1e30] {
        let mut call = base.clone();
        call.attrs.insert("epsilon".into(), AttrValue::Float(eps));
        planner.plan(&call, &Tunables::new()).unwrap();
    }
    // A float where an int is expected, a string where a float is.
    for (attr, bad) in [
        ("K", AttrValue::Float(64.0)),
        ("K", AttrValue::Str("64".into())),
        ("epsilon", AttrValue::Str("1e-5".into())),
    ] {
        let mut call = base.clone();
        call.attrs.insert(attr.into(), bad);
        assert_eq!(
            attr_error(planner.plan(&call, &Tunables::new()).unwrap_err()).0,
            attr
        );
    }
}

/// Every value at the edges of each tunable's limits (and every listed value) plans to WGSL that
/// naga accepts on the shapes that reach the tunable's templates; values outside are refused.
#[test]
fn tunable_limits_match_what_the_templates_render() {
    let m = Manifest::project();
    assert_eq!(
        m.tunable_limits.len(),
        m.file.tunables.len(),
        "every tunable has limits"
    );
    let profiles = [
        DeviceProfile::discrete_gpu(),
        DeviceProfile::webgpu_default(),
        DeviceProfile::discrete_gpu().without_feature("coop-f16-16x16x16-f32"),
    ];
    let mut shapes = Vec::new();
    for (dtype, norm) in [(DType::F16, true), (DType::F32, true), (DType::F32, false)] {
        for rows in [1, 3, 40] {
            for (k, block, bits) in [(256, 32, 4), (200, 64, 8)] {
                let mut s = shape(k, 40, rows, bits, block);
                s.dtype = dtype;
                s.norm = norm;
                s.skip = norm;
                shapes.push(s);
            }
        }
    }
    let mut planned = 0;
    for (name, limit) in &m.tunable_limits {
        let mut inside: Vec<i64> = match &limit.values {
            Some(v) => v.clone(),
            None => {
                let (lo, hi) = (limit.min.unwrap(), limit.max.unwrap());
                let mut v = vec![lo, hi, (lo + hi) / 2];
                if limit.pow2 {
                    v = (0..=20)
                        .map(|e| 1i64 << e)
                        .filter(|x| *x >= lo && *x <= hi)
                        .collect();
                }
                v
            }
        };
        inside.dedup();
        let mut outside = vec![];
        match &limit.values {
            Some(v) => outside.extend([v.iter().max().unwrap() + 1, -1]),
            None => {
                outside.push(limit.min.unwrap() - 1);
                outside.push(limit.max.unwrap() + 1);
                if limit.pow2 && limit.max.unwrap() > 2 {
                    outside.push(limit.max.unwrap() - 1);
                }
            }
        }
        for v in &inside {
            assert!(limit.allows(*v), "{name}={v}");
            let t: Tunables = [(name.clone(), *v)].into_iter().collect();
            for dev in &profiles {
                let planner = Planner::project(dev.clone());
                for s in &shapes {
                    let call = s.call();
                    match planner.plan(&call, &t) {
                        Ok(p) => {
                            planned += 1;
                            for pass in &p.passes {
                                validate(
                                    &pass.wgsl,
                                    &format!("{name}={v} {} {s:?} pass {}", dev.name, pass.id),
                                );
                            }
                        }
                        // A value the device cannot run (too many threads for its limits) may
                        // leave no variant, or break the seed's contract: both are clear errors.
                        Err(PlanError::NoVariant(_)) | Err(PlanError::Contract { .. }) => {}
                        Err(e) => panic!("{name}={v} {} {s:?}: {e}", dev.name),
                    }
                }
            }
        }
        for v in outside {
            let t: Tunables = [(name.clone(), v)].into_iter().collect();
            let call = shapes[0].call();
            match Planner::project(DeviceProfile::discrete_gpu()).plan(&call, &t) {
                Err(PlanError::Tunable { name: n, message }) => {
                    assert_eq!(&n, name);
                    assert!(message.contains(&v.to_string()), "{message}");
                }
                other => panic!("{name}={v}: expected a tunable error, got {other:?}"),
            }
        }
    }
    assert!(planned > 500, "{planned}");
}

#[test]
fn hostile_manifests_are_refused_at_load() {
    let seed = nbits_mlp_core::manifest::SEED_MANIFEST;
    // Trailing text after the document.
    let e = Manifest::from_json(&format!("{seed}\n{{}}"), "m.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("after the document"), "{e}");
    assert!(Manifest::from_json(&format!("{seed}\n  \n"), "m.json").is_ok());

    // The same binding twice in one pass.
    let mut j: serde_json::Value = serde_json::from_str(seed).unwrap();
    let b = j["variants"][0]["passes"][0]["bindings"]
        .as_array_mut()
        .unwrap();
    let first = b[0].clone();
    b.push(first.clone());
    let m = Manifest::from_json(&j.to_string(), "m.json").unwrap();
    let e = m
        .check(&nbits_mlp_core::render::Templates::builtin().names())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "binding `{}` is listed twice",
            first.as_str().unwrap()
        )),
        "{e}"
    );

    // A derive chain of 20,000 entries: refused (deeper than the limit) without quadratic work;
    // one of 100 loads and plans.
    for (len, ok) in [(20_000usize, false), (100, true)] {
        let mut j: serde_json::Value = serde_json::from_str(seed).unwrap();
        let d = j["derive"].as_object_mut().unwrap();
        d.insert("chain0".into(), serde_json::json!("attrs.K"));
        for i in 1..len {
            d.insert(
                format!("chain{i}"),
                serde_json::json!(format!("chain{} + 1", i - 1)),
            );
        }
        j["when"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!(format!("chain{} > 0", len - 1)));
        match Manifest::from_json(&j.to_string(), "m.json") {
            Ok(m) => {
                assert!(ok, "{len} entries loaded");
                let planner = Planner::new(
                    std::sync::Arc::new(m),
                    std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
                    DeviceProfile::discrete_gpu(),
                );
                planner
                    .plan(&shape(64, 16, 1, 4, 32).call(), &Tunables::new())
                    .unwrap();
            }
            Err(e) => {
                assert!(!ok, "{len}: {e}");
                assert!(e.to_string().contains("derive chain deeper than"), "{e}");
            }
        }
    }

    // An intermediate whose byte size does not fit 64 bits.
    let mut j: serde_json::Value = serde_json::from_str(seed).unwrap();
    for v in j["variants"].as_array_mut().unwrap() {
        if let Some(list) = v.get_mut("intermediates").and_then(|i| i.as_array_mut()) {
            for it in list {
                it["shape"] = serde_json::json!("[9223372036854775807, 9223372036854775807]");
            }
        }
    }
    let m = Manifest::from_json(&j.to_string(), "m.json").unwrap();
    let planner = Planner::new(
        std::sync::Arc::new(m),
        std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin()),
        DeviceProfile::discrete_gpu(),
    );
    let mut s = shape(64, 16, 3, 4, 32);
    s.norm = true;
    let e = planner
        .plan(&s.call(), &Tunables::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("larger than 2^64 bytes") || e.contains("exceeds"),
        "{e}"
    );
}

/// An intermediate's dtype may name one of the manifest's type constraints (`T1`, a project
/// extension of the manifest language): per call, the type the call binds to it, so the buffer
/// follows the call (2 bytes an element for f16, 4 for f32). A name that is neither a type
/// constraint nor a dtype is refused by `check` and by the planner, naming the variant and the
/// intermediate.
#[test]
fn intermediate_dtypes_may_name_a_type_constraint() {
    let seed = nbits_mlp_core::manifest::SEED_MANIFEST;
    let templates = std::sync::Arc::new(nbits_mlp_core::render::Templates::builtin());
    let with_dtype = |dtype: &str| {
        let json = seed.replace(
            r#""id": "normedA", "dtype": "float32""#,
            &format!(r#""id": "normedA", "dtype": "{dtype}""#),
        );
        assert_ne!(json, seed);
        json
    };
    let planner = |json: &str| {
        Planner::new(
            std::sync::Arc::new(Manifest::from_json(json, "m.json").unwrap()),
            templates.clone(),
            DeviceProfile::discrete_gpu(),
        )
    };
    let mut s = shape(64, 16, 3, 4, 32);
    s.norm = true;
    let t1 = with_dtype("T1");
    Manifest::from_json(&t1, "m.json")
        .unwrap()
        .check(&templates.names())
        .unwrap();
    for (dtype, size) in [(DType::F16, 2u64), (DType::F32, 4)] {
        s.dtype = dtype;
        let plan = planner(&t1).plan(&s.call(), &Tunables::new()).unwrap();
        let row = &plan.intermediates[0];
        assert_eq!(
            (row.id.as_str(), row.dtype, row.bytes),
            ("normedA", dtype, size * 3 * 64),
            "{dtype}"
        );
    }
    let bad = with_dtype("T9");
    let e = Manifest::from_json(&bad, "m.json")
        .unwrap()
        .check(&templates.names())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("variant `") && e.contains("intermediates.normedA") && e.contains("`T9`"),
        "{e}"
    );
    let e = planner(&bad)
        .plan(&s.call(), &Tunables::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("variant `") && e.contains("intermediates.normedA.dtype") && e.contains("`T9`"),
        "{e}"
    );
}

#[test]
fn device_profiles_below_webgpu_minimums_are_refused() {
    for (limit, value) in [
        ("maxComputeInvocationsPerWorkgroup", 64u64),
        ("maxStorageBufferBindingSize", 1024),
        ("maxComputeWorkgroupsPerDimension", 0),
        ("minStorageBufferOffsetAlignment", 512),
        ("minUniformBufferOffsetAlignment", 96),
    ] {
        let json = format!(r#"{{"name": "p", "limits": {{"{limit}": {value}}}, "features": []}}"#);
        let e = DeviceProfile::from_json(&json, "p.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains(limit) && e.contains("worse than"), "{e}");
    }
    let ok = r#"{"name": "p", "limits": {"maxComputeInvocationsPerWorkgroup": 1024, "minStorageBufferOffsetAlignment": 32}, "features": []}"#;
    DeviceProfile::from_json(ok, "p.json").unwrap();
}
