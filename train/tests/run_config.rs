//! Run configurations are refused before any work starts, with the key named: unknown
//! keys, impossible values, missing database folders and devices not built in. The
//! configurations shipped in `configs/` all pass.

use kvarn_train::{ConfigError, RunConfig};

#[path = "../../testing/paths.rs"]
mod paths;

const BASE: &str = r#"
seed = 3
[rules]
variant = "six"
[loop]
generations = 2
"#;

fn refusal(text: &str) -> String {
    match RunConfig::parse(text, "test.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_small_configuration_reads_with_defaults() {
    let c = RunConfig::parse(BASE, "test.toml").unwrap();
    assert_eq!(c.seed, 3);
    assert_eq!(c.run.generations, 2);
    assert!(c.solver.db.is_none());
}

#[test]
fn unknown_keys_are_named_with_their_line() {
    let e = refusal(&format!("{BASE}\n[train]\nbatch_sise = 64\n"));
    assert!(e.contains("batch_sise") && e.contains("test.toml"), "{e}");
    assert!(e.contains("line 9"), "{e}");
    let e = refusal(&format!("{BASE}\n[evaluation]\ngames = 2\n"));
    assert!(e.contains("evaluation"), "{e}");
    let e = refusal(&format!("{BASE}\nsimulations = 2\n"));
    assert!(e.contains("simulations"), "{e}");
    let e = refusal(&format!("{BASE}\n[train]\ncheap_search_value = \"next\"\n"));
    assert!(
        e.contains("cheap_search_value") && e.contains("next_full"),
        "{e}"
    );
    let e = refusal(&format!(
        "{BASE}\n[train]\npolicy_surprise_weighs = \"value\"\n"
    ));
    assert!(
        e.contains("policy_surprise_weighs") && e.contains("policy_loss"),
        "{e}"
    );
}

#[test]
fn impossible_values_are_named() {
    for (extra, key) in [
        ("[train]\nbatch_size = 0", "train.batch_size"),
        ("[train]\nlearning_rate = -1.0", "train.learning_rate"),
        ("[search]\nsimulations = 0", "search.simulations"),
        ("[selfplay]\nthreads = 0", "selfplay.threads"),
        (
            "[network]\nkind = \"mlp\"\nhidden = 0\nblocks = 1",
            "network.hidden",
        ),
        ("[train]\nremoval_weight = 0.0", "train.removal_weight"),
        (
            "[train]\npolicy_surprise_share = 1.5",
            "train.policy_surprise_share",
        ),
        (
            "[selfplay]\nrandom_opening_plies = 1000",
            "selfplay.random_opening_plies",
        ),
    ] {
        let e = refusal(&format!("{BASE}\n{extra}\n"));
        assert_eq!(e.matches(key).count(), 1, "{key} not named once in: {e}");
        assert_eq!(e.matches(':').count(), 2, "origin: key: reason, in {e}");
    }
    let text = BASE.replace("generations = 2", "generations = 0");
    assert!(refusal(&text).contains("loop.generations"));
    let text = BASE.replace("generations = 2", "generations = 2\nbaseline_depths = [0]");
    assert!(refusal(&text).contains("loop.baseline_depths"));
    let text = BASE.replace(
        "generations = 2",
        "generations = 2\ngames_vs_previous = 0\npromotion_score = 0.6",
    );
    assert!(refusal(&text).contains("loop.promotion_score"));
}

#[test]
fn a_missing_database_folder_is_refused_unless_it_will_be_built() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-db");
    let text = format!(
        "{BASE}\n[solver]\ndb = {:?}\n",
        missing.display().to_string()
    );
    let e = refusal(&text);
    assert!(e.contains("solver.db") && e.contains("no-such-db"), "{e}");
    let text = format!(
        "{BASE}\n[solver]\ndb = {:?}\nbuild_if_missing = true\n",
        missing.display().to_string()
    );
    RunConfig::parse(&text, "test.toml").unwrap();
    // Six is solved whole: a count of men for Nine's endgames is refused, not ignored.
    let text = format!(
        "{BASE}\n[solver]\ndb = {:?}\nbuild_if_missing = true\nmax_men = 99\n",
        missing.display().to_string()
    );
    let e = refusal(&text);
    assert!(
        e.contains("solver.max_men") && e.contains("solved whole"),
        "{e}"
    );
}

#[test]
fn whole_game_tables_are_refused_unused_missing_or_on_a_ray_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let (db, whole) = (dir.path().join("db"), dir.path().join("whole"));
    std::fs::create_dir(&whole).unwrap();
    let config = |selfplay: &str| {
        format!(
            "seed = 3\n[rules]\nvariant = \"five\"\n[loop]\ngenerations = 2\n\
             [solver]\ndb = {:?}\nbuild_if_missing = true\nwhole_game_db = {:?}\n{selfplay}",
            db.display().to_string(),
            whole.display().to_string()
        )
    };
    let adjudicated = config("[selfplay.endgame]\nadjudicate = true\n");
    let e = refusal(&adjudicated);
    assert!(
        e.contains("solver.whole_game_db") && e.contains("kvarn solve --variant five --wdl"),
        "{e}"
    );
    let rules = kvarn_game::Rules::new(kvarn_game::Variant::Five);
    kvarn_solver::db::solve_wdl_into(&whole, rules, rules.men(), |_, _, _, _| {}).unwrap();
    let c = RunConfig::parse(&adjudicated, "test.toml").unwrap();
    assert_eq!(c.solver.whole_game_db.as_deref(), Some(whole.as_path()));
    let e = refusal(&config(""));
    assert!(
        e.contains("solver.whole_game_db") && e.contains("selfplay.endgame.probes"),
        "{e}"
    );
    let e = refusal(&config(
        "[selfplay]\nbackend = \"ray\"\n[selfplay.endgame]\nprobes = true\n",
    ));
    assert!(
        e.contains("solver.whole_game_db") && e.contains("ray"),
        "{e}"
    );
    let shared = "[selfplay.endgame]\nadjudicate = true\nwhole_game_share = 0.5\n";
    RunConfig::parse(&config(shared), "test.toml").unwrap();
    let e = refusal(&format!(
        "seed = 3\n[rules]\nvariant = \"five\"\n[solver]\ndb = {:?}\n{shared}",
        db.display().to_string()
    ));
    assert!(
        e.contains("selfplay.endgame.whole_game_share") && e.contains("solver.whole_game_db"),
        "{e}"
    );
}

#[test]
fn branch_starts_are_refused_beyond_the_games_left_or_on_a_ray_cluster() {
    let starts = |random: f64, branch: f64| {
        format!(
            "{BASE}\n[selfplay.random_starts]\nshare = {random:?}\n\
             [selfplay.branch_starts]\nshare = {branch:?}\n"
        )
    };
    RunConfig::parse(&starts(0.25, 0.75), "test.toml").unwrap();
    let e = refusal(&starts(0.5, 0.75));
    assert!(
        e.contains("selfplay.branch_starts.share") && e.contains("random_starts.share"),
        "{e}"
    );
    let e = refusal(&starts(0.0, 1.5));
    assert!(e.contains("selfplay.branch_starts.share"), "{e}");
    let mills = format!("{}closing_mills = 1.5\n", starts(0.0, 0.5));
    let e = refusal(&mills);
    assert!(e.contains("selfplay.branch_starts.closing_mills"), "{e}");
    RunConfig::parse(
        &format!("{}placing = true\nclosing_mills = 0.5\n", starts(0.0, 0.5)),
        "test.toml",
    )
    .unwrap();
    let ray =
        format!("{BASE}\n[selfplay]\nbackend = \"ray\"\n[selfplay.branch_starts]\nshare = 0.25\n");
    let e = refusal(&ray);
    assert!(
        e.contains("selfplay.branch_starts.share") && e.contains("ray"),
        "{e}"
    );
}

#[test]
fn a_device_not_built_in_is_refused() {
    if kvarn_model::DeviceChoice::Wgpu.device().is_ok() {
        return;
    }
    let e = refusal(&format!("device = \"wgpu\"\n{BASE}"));
    assert!(e.contains("device") && e.contains("wgpu"), "{e}");
    let e = refusal(&format!("device = \"tpu\"\n{BASE}"));
    assert!(e.contains("tpu"), "{e}");
}

#[test]
fn a_missing_file_is_named() {
    let e = RunConfig::load(std::path::Path::new("no/such/config.toml")).unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }));
    assert!(e.to_string().contains("no/such/config.toml"), "{e}");
}

#[test]
fn the_shipped_configurations_read() {
    let root = paths::workspace().join("configs");
    let mut n = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&path).unwrap();
            match toml::from_str::<RunConfig>(&text) {
                Ok(mut c) => {
                    // Database folders may be missing here and GPU backends not built
                    // in; everything else must pass.
                    c.solver.build_if_missing = true;
                    c.device = kvarn_model::DeviceChoice::Cpu;
                    c.validate()
                        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
                }
                Err(e) => panic!("{}: {e}", path.display()),
            }
            n += 1;
        }
    }
    assert!(n >= 4, "quickstart, six, nine and nine-gpu configurations");
}

/// Every float setting must be a finite number in its range, and counts that make no
/// sense at zero are refused, each with its key named (`value_weight = inf` trained to
/// NaN; `steps_per_generation = 0` was accepted).
#[test]
fn non_finite_and_zero_values_are_refused() {
    for (extra, key) in [
        ("[train]\nvalue_weight = inf", "train.value_weight"),
        ("[train]\nvalue_weight = nan", "train.value_weight"),
        ("[train]\nvalue_weight = -inf", "train.value_weight"),
        ("[train]\nvalue_weight = 1e300", "train.value_weight"),
        (
            "[train]\nsteps_per_generation = 0",
            "train.steps_per_generation",
        ),
        ("[train]\nlearning_rate = inf", "train.learning_rate"),
        ("[train]\nlearning_rate = nan", "train.learning_rate"),
        ("[train]\nweight_decay = nan", "train.weight_decay"),
        (
            "[train]\nsearch_value_share = nan",
            "train.search_value_share",
        ),
        (
            "[train.schedule]\nkind = \"step\"\nevery = 10\nfactor = nan",
            "train.schedule",
        ),
        (
            "[train.schedule]\nkind = \"cosine\"\nsteps = 10\nmin_fraction = inf",
            "train.schedule",
        ),
        ("[search]\nc_puct = inf", "search.c_puct"),
        ("[search]\nc_puct = nan", "search.c_puct"),
        ("[search]\nfpu_reduction = inf", "search.fpu_reduction"),
        ("[search]\ndirichlet_alpha = inf", "search.dirichlet_alpha"),
        (
            "[search]\ndirichlet_epsilon = nan",
            "search.dirichlet_epsilon",
        ),
        ("[search]\ntemperature = inf", "search.temperature"),
        (
            "[search]\nexplored_value_gap = nan",
            "search.explored_value_gap",
        ),
        (
            "[search]\nexplored_value_gap = -0.1",
            "search.explored_value_gap",
        ),
        // The cut needs moves drawn by the late temperature: without one it would do nothing.
        (
            "[train]\nbootstrap_explored = true",
            "train.bootstrap_explored",
        ),
        ("[search]\nforced_playouts = inf", "search.forced_playouts"),
        ("[search]\nforced_playouts = -1", "search.forced_playouts"),
        // A Gumbel root plans its visits itself: forcing would be silently ignored.
        (
            "[search]\nroot = \"gumbel\"\nforced_playouts = 2",
            "search.forced_playouts",
        ),
        // A Gumbel root plays the move its halving kept: no bound to choose by.
        (
            "[search]\nroot = \"gumbel\"\nmove_choice = \"lcb\"",
            "search.move_choice",
        ),
        ("[search]\nlcb_stdevs = -1", "search.lcb_stdevs"),
        ("[search]\ngumbel_c_visit = inf", "search.gumbel_c_visit"),
        ("[search]\ngumbel_c_scale = 1e40", "search.gumbel_c_scale"),
        (
            "[selfplay.playout_cap]\nfull_probability = nan",
            "selfplay.playout_cap.full_probability",
        ),
        ("[loop]\npromotion_score = nan", "loop.promotion_score"),
    ] {
        // `[loop]` is already in BASE: put its extra settings there.
        let text = match extra.strip_prefix("[loop]\n") {
            Some(rest) => BASE.replace("generations = 2", &format!("generations = 2\n{rest}")),
            None => format!("{BASE}\n{extra}\n"),
        };
        let e = refusal(&text);
        assert!(e.contains(key), "{key} not named in: {e}");
    }
    for (extra, key) in [
        (
            "[loop]\ngames_per_generation = 0",
            "loop.games_per_generation",
        ),
        ("[loop]\ncheckpoint_every = 0", "loop.checkpoint_every"),
        ("[loop]\neval_simulations = 0", "loop.eval_simulations"),
        ("[loop]\neval_symmetries = 17", "loop.eval_symmetries"),
        (
            "[loop]\nplayer = { simulations = 0 }",
            "loop.player.simulations",
        ),
        ("[loop]\nplayer = { c_puct = 0 }", "loop.player.c_puct"),
        ("[loop]\nplayer = { depth = 3 }", "loop.player.depth"),
        ("[train]\nwindow_samples = 0", "train.window_samples"),
        ("[selfplay]\nmax_plies = 0", "selfplay.max_plies"),
        ("[search]\ngumbel_actions = 0", "search.gumbel_actions"),
    ] {
        let text = match extra.strip_prefix("[loop]\n") {
            Some(rest) => BASE.replace("generations = 2", &format!("generations = 2\n{rest}")),
            None => format!("{BASE}\n{extra}\n"),
        };
        assert!(refusal(&text).contains(key), "{key}");
    }
}

#[test]
fn the_evaluation_players_move_choice_is_read_and_needs_a_puct_root() {
    let note =
        |c: &RunConfig| kvarn_train::run_config::player_note(&c.run.player(&c.search).unwrap());
    for setting in [
        "eval_move_choice = \"lcb\"",
        "player = { move_choice = \"lcb\" }",
    ] {
        let lcb = BASE.replace("generations = 2", &format!("generations = 2\n{setting}"));
        let c = RunConfig::parse(&lcb, "test.toml").unwrap();
        let player = c.run.player(&c.search).unwrap();
        assert_eq!(player.search.move_choice, kvarn_selfplay::MoveChoice::Lcb);
        assert_eq!(c.search.move_choice, kvarn_selfplay::MoveChoice::Visits);
        assert!(note(&c).contains("lower confidence bound"));
        let e = refusal(&format!("{lcb}\n[search]\nroot = \"gumbel\"\n"));
        assert!(e.contains("loop.player"), "{e}");
    }
    let plain = RunConfig::parse(BASE, "test.toml").unwrap();
    assert_eq!(note(&plain), "");
    // A setting given both ways is refused by name.
    let both = BASE.replace(
        "generations = 2",
        "generations = 2\neval_simulations = 8\nplayer = { simulations = 9 }",
    );
    assert!(refusal(&both).contains("loop.eval_simulations"));
}

#[test]
fn settings_on_top_of_a_configuration_are_put_in_and_bad_ones_named() {
    let settings = [
        "seed=7",
        "train. learning_rate =0.005",
        "search.root=gumbel",
        "loop.baseline_depths=[2, 6]",
        "selfplay.playout_cap.enabled=true",
    ]
    .map(String::from);
    let text = RunConfig::with_settings(BASE, "test.toml", &settings).unwrap();
    assert!(
        text.starts_with("# test.toml with --set seed=7 --set"),
        "{text}"
    );
    let c = RunConfig::parse(&text, "test").unwrap();
    assert_eq!(c.seed, 7);
    assert_eq!(c.run.generations, 2, "what was not set stays");
    assert_eq!(c.train.learning_rate, 0.005);
    assert_eq!(c.search.root, kvarn_selfplay::RootSearch::Gumbel);
    assert_eq!(c.run.baseline_depths, vec![2, 6]);
    assert!(c.selfplay.playout_cap.enabled);
    // Nothing set: the text as it was, comments and all.
    assert_eq!(RunConfig::with_settings(BASE, "t", &[]).unwrap(), BASE);
    for (bad, says) in [
        ("seed", "KEY=VALUE"),
        ("rules.variant.x=1", "variant is not a table"),
        ("train..steps=1", "empty part"),
        ("seed=1\nseed=2", "control character"),
    ] {
        let e = RunConfig::with_settings(BASE, "t", &[bad.to_string()]).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains(&format!("--set {bad}")) && e.contains(says),
            "{e}"
        );
    }
    // A setting that reads but is wrong is refused as any file's would be.
    let text = RunConfig::with_settings(BASE, "t", &["train.batch_sise=3".into()]).unwrap();
    assert!(refusal(&text).contains("batch_sise"));
}

#[test]
fn the_ownership_head_is_an_mlps_and_its_weight_is_checked() {
    let text = format!(
        "{BASE}\n[network]\nkind = \"mlp\"\nhidden = 32\nblocks = 1\nownership_head = true\n[train]\nownership_weight = 0.5\n"
    );
    let c = RunConfig::parse(&text, "test.toml").unwrap();
    assert_eq!(
        c.network,
        kvarn_model::NetConfig::Mlp {
            hidden: 32,
            blocks: 1,
            ownership_head: true
        }
    );
    assert_eq!(c.train.ownership_weight, 0.5);
    assert_eq!(c.network.describe(), "mlp 2x32 +ownership");
    let plain = RunConfig::parse(BASE, "test.toml").unwrap();
    assert!(!plain.network.describe().contains("ownership"));
    let e = refusal(&format!(
        "{BASE}\n[network]\nkind = \"graph\"\nownership_head = true\n"
    ));
    assert!(e.contains("ownership_head"), "{e}");
    let e = refusal(&format!("{BASE}\n[train]\nownership_weight = -1.0\n"));
    assert!(e.contains("train.ownership_weight"), "{e}");
    let decisive = RunConfig::parse(
        &format!("{BASE}\n[train]\nownership_games = \"decisive\"\n"),
        "test.toml",
    )
    .unwrap();
    assert_eq!(
        decisive.train.ownership_games,
        kvarn_train::OwnershipGames::Decisive
    );
    let e = refusal(&format!("{BASE}\n[train]\nownership_games = \"won\"\n"));
    assert!(
        e.contains("ownership_games") && e.contains("decisive"),
        "{e}"
    );
    let horizon = RunConfig::parse(
        &format!("{BASE}\n[train]\nownership_horizon = 8\n"),
        "test.toml",
    )
    .unwrap();
    assert_eq!(horizon.train.ownership_horizon, Some(8));
    assert_eq!(plain.train.ownership_horizon, None);
    let e = refusal(&format!("{BASE}\n[train]\nownership_horizon = 0\n"));
    assert!(e.contains("train.ownership_horizon"), "{e}");
}
