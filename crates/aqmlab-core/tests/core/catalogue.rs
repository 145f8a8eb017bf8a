//! The catalogue documents exactly what the loader accepts: for every section, discipline, flow
//! kind and congestion control, the keys the loader lists as allowed (in its answer to an unknown
//! key) are the keys the catalogue documents. And every time-series column a run produces is
//! documented. The documentation site's scenario reference is generated from this catalogue.

use std::collections::BTreeSet;

use aqmlab_core::{series_columns, Scenario, Simulation};
use serde_json::Value;

fn catalogue() -> Value {
    serde_json::from_str(&aqmlab_core::scenario::catalogue_json()).unwrap()
}

fn names(params: &Value) -> BTreeSet<String> {
    params.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

/// A value of the unit the catalogue states, for keys that must be given.
fn sample_value(unit: &str) -> &'static str {
    if unit.starts_with("bit rate") {
        "\"100kbps\""
    } else if unit.starts_with("duration") {
        "\"1s\""
    } else if unit.starts_with("probability") {
        "0.5"
    } else {
        "10"
    }
}

/// `key = value` for every required key among `params` (except those in `skip`).
fn required(params: &Value, skip: &[&str]) -> String {
    params
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["required"].as_bool().unwrap() && !skip.contains(&p["name"].as_str().unwrap()))
        .map(|p| format!("{} = {}", p["name"].as_str().unwrap(), sample_value(p["unit"].as_str().unwrap())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The keys the loader allows where `zz_not_a_key` is written in `text`.
fn allowed_keys(text: &str) -> BTreeSet<String> {
    let e = Scenario::parse(text, "t.toml", &[]).expect_err("an unknown key must be refused").to_string();
    assert!(e.contains("zz_not_a_key: unknown key"), "{e}");
    let list = e.split("allowed here: ").nth(1).unwrap().split(')').next().unwrap();
    list.split(", ").map(str::to_string).collect()
}

fn scenario(simulation: &str, link: &str, flow: &str, trace: &str) -> String {
    format!(
        "[simulation]\nduration = \"10s\"\n{simulation}\n\
         [[link]]\nname = \"b\"\nbetween = [\"a\", \"z\"]\nrate = \"1Mbps\"\n{link}\n\
         [[flow]]\nname = \"f\"\nsrc = \"a\"\ndst = \"z\"\n{flow}\n{trace}"
    )
}

const CBR: &str = "kind = \"cbr\"\nrate = \"100kbps\"";

#[test]
fn sections_document_every_key_the_loader_accepts() {
    let cat = catalogue();
    let s = &cat["sections"];
    assert_eq!(allowed_keys(&scenario("zz_not_a_key = 1", "", CBR, "")), names(&s["simulation"]));
    assert_eq!(allowed_keys(&scenario("", "zz_not_a_key = 1", CBR, "")), names(&s["link"]));
    let trace = "[trace]\ninterval = \"1s\"\nzz_not_a_key = 1";
    assert_eq!(allowed_keys(&scenario("", "", CBR, trace)), names(&s["trace"]));
}

#[test]
fn every_discipline_documents_every_key_it_accepts() {
    let cat = catalogue();
    for d in cat["disciplines"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let mut extra = required(&d["params"], &[]);
        if !extra.is_empty() {
            extra = format!(", {extra}");
        }
        let link = format!("queue = {{ discipline = \"{name}\"{extra}, zz_not_a_key = 1 }}");
        let mut documented = names(&d["params"]);
        documented.insert("discipline".into());
        assert_eq!(allowed_keys(&scenario("", &link, CBR, "")), documented, "discipline {name}");
    }
}

#[test]
fn every_flow_kind_and_congestion_control_documents_every_key_it_accepts() {
    let cat = catalogue();
    let common = names(&cat["flow_common"]);
    for k in cat["flow_kinds"].as_array().unwrap() {
        let kind = k["name"].as_str().unwrap();
        let ccs: Vec<Option<&Value>> = if names(&k["params"]).contains("cc") {
            cat["congestion_controls"].as_array().unwrap().iter().map(Some).collect()
        } else {
            vec![None]
        };
        for cc in ccs {
            let mut flow = format!("kind = \"{kind}\"\n");
            let mut documented: BTreeSet<String> = common.union(&names(&k["params"])).cloned().collect();
            let required_kind = required(&k["params"], &["cc"]);
            if !required_kind.is_empty() {
                flow += &required_kind.replace(", ", "\n");
                flow += "\n";
            }
            if let Some(cc) = cc {
                flow += &format!("cc = \"{}\"\n", cc["name"].as_str().unwrap());
                let required_cc = required(&cc["params"], &[]);
                if !required_cc.is_empty() {
                    flow += &required_cc.replace(", ", "\n");
                    flow += "\n";
                }
                documented.extend(names(&cc["params"]));
            }
            flow += "zz_not_a_key = 1";
            assert_eq!(allowed_keys(&scenario("", "", &flow, "")), documented, "kind {kind}, cc {cc:?}");
        }
    }
}

#[test]
fn every_series_column_a_run_produces_is_documented() {
    // A link per discipline and a TCP flow per congestion control, everything traced.
    let cat = catalogue();
    let mut text = String::from("[simulation]\nduration = \"3s\"\n");
    let mut flow_names = vec![];
    for (i, d) in cat["disciplines"].as_array().unwrap().iter().enumerate() {
        let name = d["name"].as_str().unwrap();
        let mut extra = required(&d["params"], &[]);
        if !extra.is_empty() {
            extra = format!(", {extra}");
        }
        text += &format!(
            "[[link]]\nname = \"l{i}\"\nbetween = [\"s{i}\", \"d{i}\"]\nrate = \"1Mbps\"\n\
             queue = {{ discipline = \"{name}\"{extra} }}\n"
        );
        for (j, cc) in cat["congestion_controls"].as_array().unwrap().iter().enumerate() {
            let cc_name = cc["name"].as_str().unwrap();
            let required_cc = required(&cc["params"], &[]).replace(", ", "\n");
            let flow = format!("f{i}_{j}");
            text += &format!(
                "[[flow]]\nname = \"{flow}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nkind = \"tcp\"\ncc = \"{cc_name}\"\n{required_cc}\n"
            );
            flow_names.push(flow);
        }
        text +=
            &format!("[[flow]]\nname = \"u{i}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\nkind = \"cbr\"\nrate = \"2Mbps\"\n");
    }
    // A Telnet, whose keystroke process has columns of its own.
    text += "[[flow]]\nname = \"k\"\nsrc = \"s0\"\ndst = \"d0\"\nkind = \"telnet\"\nmean_interval = \"50ms\"\n";
    text += "[trace]\ninterval = \"100ms\"\nlinks = [\"l*\"]\nflows = [\"all\"]\nqueue_by_flow = true\n";
    let sc = Scenario::parse(&text, "all.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap();
    let results = sim.results();
    let mut seen = 0;
    for (link, cols) in &results.series.links {
        for column in cols.values.keys() {
            assert!(series_columns::is_documented(column, true), "link {link}: column {column} is not documented");
            seen += 1;
        }
    }
    for (flow, cols) in &results.series.flows {
        for column in cols.values.keys() {
            assert!(series_columns::is_documented(column, false), "flow {flow}: column {column} is not documented");
            seen += 1;
        }
    }
    // And the documentation lists nothing no run produces (queued:FLOW aside, one per flow).
    let produced: BTreeSet<&str> = results
        .series
        .links
        .values()
        .chain(results.series.flows.values())
        .flat_map(|c| c.values.keys().map(String::as_str))
        .collect();
    for c in series_columns::LINK.iter().chain(series_columns::FLOW) {
        // A placeholder (queued:FLOW, drops:REASON) stands for the columns that begin like it.
        let placeholder = c.name.split_once(':').map(|(prefix, _)| format!("{prefix}:"));
        assert!(
            match placeholder {
                Some(prefix) => produced.iter().any(|p| p.starts_with(&prefix)),
                None => produced.contains(c.name),
            },
            "{} is documented but no run produced it",
            c.name
        );
    }
    assert!(seen > 100, "{seen}");
}

/// The results' columns of a run with every discipline, every congestion control, a flow of
/// every other kind and a workload: each must be listed in `result_columns` (with its label
/// and unit), so a figure can name it.
#[test]
fn every_results_column_a_run_produces_is_documented() {
    use aqmlab_core::columns::{Column, Table};
    use aqmlab_core::result_columns;

    let cat = catalogue();
    let mut text = String::from("[simulation]\nduration = \"2s\"\nwarmup = \"0.5s\"\n");
    text += "[[link]]\nname = \"access\"\nbetween = [\"h\", \"s\"]\nrate = \"1Gbps\"\ndelay = \"1ms\"\n";
    for (i, d) in cat["disciplines"].as_array().unwrap().iter().enumerate() {
        let name = d["name"].as_str().unwrap();
        let mut extra = required(&d["params"], &[]);
        if !extra.is_empty() {
            extra = format!(", {extra}");
        }
        text += &format!(
            "[[link]]\nname = \"l{i}\"\nbetween = [\"s\", \"d{i}\"]\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
             queue = {{ discipline = \"{name}\"{extra} }}\n"
        );
        text += &format!("[[flow]]\nname = \"u{i}\"\nsrc = \"h\"\ndst = \"d{i}\"\nkind = \"cbr\"\nrate = \"2Mbps\"\n");
    }
    for (j, cc) in cat["congestion_controls"].as_array().unwrap().iter().enumerate() {
        let cc_name = cc["name"].as_str().unwrap();
        let required_cc = required(&cc["params"], &[]).replace(", ", "\n");
        text += &format!(
            "[[flow]]\nname = \"t{j}\"\nsrc = \"h\"\ndst = \"d0\"\nkind = \"tcp\"\ncc = \"{cc_name}\"\nbytes = 20000\n{required_cc}\n"
        );
    }
    // An uncongested path for the flows whose results need deliveries and finished transfers.
    text += "[[link]]\nname = \"quiet\"\nbetween = [\"s\", \"q\"]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n";
    text += "[[link]]\nname = \"marking\"\nbetween = [\"s\", \"m\"]\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
             queue = { discipline = \"red\", ecn = true }\n";
    text += "[[flow]]\nname = \"ecn\"\nsrc = \"h\"\ndst = \"m\"\nkind = \"tcp\"\necn = true\n";
    text += "[[flow]]\nname = \"telnet\"\nsrc = \"h\"\ndst = \"q\"\nkind = \"telnet\"\nmean_interval = \"50ms\"\ngroup = \"g\"\n";
    text +=
        "[[flow]]\nname = \"probe\"\nsrc = \"h\"\ndst = \"d1\"\nkind = \"ping\"\ninterval = \"100ms\"\ngroup = \"g\"\n";
    text += "[[flow]]\nname = \"web\"\nkind = \"workload\"\nsrc = \"h\"\ndst = \"q\"\nsizes = \"web_search\"\n\
             arrival_rate = 20\ncc = \"cubic\"\nhandshake = true\n";
    text += "[trace]\ninterval = \"100ms\"\nlinks = [\"l*\"]\n";
    let sc = Scenario::parse(&text, "all.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&sc, None);
    sim.run().unwrap();
    let results = sim.results();
    assert!(!results.connections.is_empty(), "the workload opened no connection");

    let numeric = |t: &Table| -> Vec<String> {
        t.columns()
            // A text column all of whose values are missing (`group`) comes out as floats.
            .filter(|(_, c)| match c {
                Column::Text(_) => false,
                Column::Float(v) => v.iter().any(|x| !x.is_nan()),
                _ => true,
            })
            .map(|(name, _)| name.to_string())
            .collect::<Vec<_>>()
    };
    let workload_columns: Vec<String> = results
        .workloads
        .iter()
        .flat_map(|w| {
            let mut v = serde_json::to_value(w).unwrap();
            let buckets = v["buckets"].take();
            let mut names: Vec<String> = vec![];
            for object in std::iter::once(&v).chain(buckets.as_array().unwrap()) {
                for (k, value) in object.as_object().unwrap() {
                    if value.is_number() {
                        names.push(k.clone());
                    }
                }
            }
            names
        })
        .collect();
    let run = serde_json::to_value(&results.run).unwrap();
    let run_columns: Vec<String> =
        run.as_object().unwrap().iter().filter(|(_, v)| v.is_number()).map(|(k, _)| k.clone()).collect();
    let fairness = serde_json::to_value(&results.fairness).unwrap();
    let mut fairness_columns = vec![];
    for (k, v) in fairness.as_object().unwrap() {
        match v {
            Value::Object(groups) => fairness_columns.extend(groups.keys().map(|g| format!("fairness.{k}.{g}"))),
            Value::Number(_) => fairness_columns.push(format!("fairness.{k}")),
            _ => {}
        }
    }
    let tables = [
        ("flows", numeric(&results.flow_table().unwrap())),
        ("links", numeric(&results.link_table().unwrap())),
        ("link_flows", numeric(&results.link_flow_table().unwrap())),
        ("connections", numeric(&results.connection_table().unwrap())),
        ("workloads", workload_columns),
        ("runs", run_columns.into_iter().chain(fairness_columns).collect()),
    ];
    let mut seen = BTreeSet::new();
    let mut unlisted = vec![];
    for (table, columns) in &tables {
        for column in columns {
            match result_columns::find(table, column) {
                Some(entry) => {
                    assert!(!entry.label.is_empty(), "{table}.{column} has no label");
                    seen.insert((*table, entry.name));
                }
                None => unlisted.push(format!("{table}.{column}")),
            }
        }
    }
    assert!(unlisted.is_empty(), "columns not in result_columns: {unlisted:?}");
    // And nothing is listed that no run produces.
    let mut unseen = vec![];
    for (table, columns) in result_columns::TABLES {
        for c in *columns {
            if !seen.contains(&(*table, c.name)) {
                unseen.push(format!("{table}.{}", c.name));
            }
        }
    }
    assert!(unseen.is_empty(), "listed in result_columns, but this run produced no such column: {unseen:?}");
}
