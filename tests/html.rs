//! The HTML report: self-contained (nothing fetched), the same figures as the text
//! report, user-chosen names escaped, and rendered by a real browser without a console
//! error or a network request (scripts/browser-check.sh, where Chromium is installed).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Env;

const QUICK: &[&str] = common::WITH_INTERVALS;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The page loads nothing: no script, and no address to fetch anything from (the only
/// URL allowed is SVG's namespace, an identifier that is never fetched).
fn assert_self_contained(html: &str) {
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..100.min(html.len())]
    );
    assert!(
        !html.to_lowercase().contains("<script"),
        "a script in the page"
    );
    let without_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for scheme in ["http://", "https://", "url(", "@import"] {
        assert!(
            !without_namespace.contains(scheme),
            "`{scheme}` in the page"
        );
    }
    assert!(
        html.contains("Content-Security-Policy"),
        "loads are forbidden too"
    );
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// scripts/browser-check.sh on `page`: its status and what it said.
fn browser_check(page: &Path, shot: &Path) -> (bool, String) {
    let out = Command::new("bash")
        .arg(repo("scripts/browser-check.sh"))
        .arg(page)
        .arg(shot)
        .output()
        .expect("run browser-check.sh");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn a_run_s_html_report_is_self_contained_and_renders_in_a_browser() {
    let env = Env::new();
    let mut args = vec![
        "run",
        "chacha20-rng",
        "--html",
        "run.html",
        "--format",
        "md",
    ];
    args.extend(QUICK);
    let md = env.run_ok(&args);
    let html = std::fs::read_to_string(env.path("run.html")).expect("--html wrote the page");
    assert_self_contained(&html);

    // The machine block, then the tables of the text report, then every chart this run has.
    assert!(html.contains("<dl class=\"machine\">"));
    for label in ["CPU", "Testbed", "Crypto instruction sets", "Counters here"] {
        assert!(html.contains(&format!("<dt>{label}</dt>")), "{label}");
    }
    // Each fact once: the counter in the report's `Counter:` line, the CPU in the block.
    assert!(html.contains("<p>Counter: "), "{html}");
    assert!(!html.contains("<dt>Counter</dt>"), "{html}");
    assert!(!html.contains("<p>Machine: "), "{html}");
    for title in [
        " per byte against message length",
        "Distribution of the raw samples",
        "Comparisons: change of each candidate against its baseline",
    ] {
        assert!(html.contains(title), "chart `{title}` missing");
    }
    assert!(html.matches("<svg").count() >= 3);
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| rand_chacha"))
        .collect();
    // One row per message length in the results table, and one in the ratios table.
    assert_eq!(rows.len(), 2 * 5, "{md}");
    for line in rows {
        let cells: Vec<&str> = line
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let row = cells
            .iter()
            .map(|c| format!("<td>{c}</td>"))
            .collect::<String>();
        let html_row: String = html
            .lines()
            .find(|l| cells[..4].iter().all(|c| l.contains(&format!(">{c}<"))))
            .map(|l| {
                l.replace(" class=\"num\"", "")
                    .replace("<tr>", "")
                    .replace("</tr>", "")
            })
            .unwrap_or_default();
        assert_eq!(
            html_row, row,
            "the HTML table has the text report's figures"
        );
    }

    // `report` gives the same page again.
    env.run_ok(&["report", "latest", "--format", "html", "-o", "again.html"]);
    assert_eq!(
        std::fs::read_to_string(env.path("again.html")).unwrap(),
        html
    );

    // Needs no browser: checked before the browser checks may be skipped.
    env.run_ok(&["history", "--format", "html", "-o", "history.html"]);
    let history = std::fs::read_to_string(env.path("history.html")).unwrap();
    assert_self_contained(&history);

    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: the browser check needs chromium (scripts/setup.sh installs it)");
        return;
    };
    eprintln!("browser check with {browser}");
    let (ok, said) = browser_check(&env.path("run.html"), &env.path("run.png"));
    assert!(ok, "{said}");
    assert!(std::fs::metadata(env.path("run.png")).unwrap().len() > 10_000);

    let (ok, said) = browser_check(&env.path("history.html"), &env.path("history.png"));
    assert!(ok, "{said}");
}

#[test]
fn the_browser_check_fails_on_a_console_error_and_on_a_request() {
    if chromium().is_none() {
        eprintln!("SKIPPED: the browser check needs chromium (scripts/setup.sh installs it)");
        return;
    }
    let env = Env::new();
    // No script, no reference: only the browser can see what is wrong with these.
    let console = env.path("console.html");
    std::fs::write(
        &console,
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"><style>p{color:red}</style></head><body><p>x</p></body></html>",
    )
    .unwrap();
    let (ok, said) = browser_check(&console, &env.path("console.png"));
    assert!(!ok && said.contains("console messages"), "{said}");

    // An image from a closed port on loopback, named where the static check does not look.
    let request = env.path("request.html");
    std::fs::write(
        &request,
        "<!DOCTYPE html><html><head><style>body{background-image:image-set(\"http://127.0.0.1:9/x.png\" 1x)}</style></head><body><p>x</p></body></html>",
    )
    .unwrap();
    let (ok, said) = browser_check(&request, &env.path("request.png"));
    assert!(!ok && said.contains("network requests"), "{said}");
}

#[test]
fn names_from_a_manifest_are_escaped() {
    let env = Env::new();
    let dir = env.path("evil");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["faulty.c", "api.h"] {
        std::fs::copy(repo("tests/c/faulty").join(f), dir.join(f)).unwrap();
    }
    // Variant names may not hold `/`, `@` or spaces: a backslash stands in for the slash.
    std::fs::write(
        dir.join("manifest.toml"),
        r#"name = "x<b>y"
sources = ["faulty.c"]
flags = ["-O1"]
targets = ["native"]

[[implementation]]
variant = "<script>alert(1)<\\script>"
algorithm = "sha-256<i>"
kind = "hash"
"#,
    )
    .unwrap();
    let manifest = dir.join("manifest.toml");
    let mut args = vec![
        "run",
        manifest.to_str().unwrap(),
        "--sizes",
        "1024",
        "--format",
        "csv",
    ];
    args.extend(QUICK);
    let csv = env.run_ok(&args);
    assert!(
        csv.contains("<script>alert(1)"),
        "the name went through: {csv}"
    );
    env.run_ok(&["report", "latest", "--format", "html", "-o", "evil.html"]);
    let html = std::fs::read_to_string(env.path("evil.html")).unwrap();
    assert_self_contained(&html);
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;\\script&gt;"),
        "shown, escaped"
    );
    assert!(!html.contains("<b>") && !html.contains("<i>"));
}

#[test]
fn no_two_charts_share_a_title() {
    // 16 lines (two GCMs x four providers x encrypt and decrypt): too many for one
    // chart, so each algorithm and operation gets its own, named for them.
    let env = Env::new();
    let mut args = vec!["run", "gcm", "--sizes", "64,1024", "--html", "run.html"];
    args.extend(QUICK);
    env.run_ok(&args);
    let html = std::fs::read_to_string(env.path("run.html")).unwrap();
    let titles: Vec<&str> = html
        .split("<h3>")
        .skip(1)
        .map(|t| t.split("</h3>").next().unwrap())
        .collect();
    let mut unique = titles.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), titles.len(), "{titles:#?}");
    assert!(
        titles.iter().any(|t| t.starts_with("aes-128-gcm encrypt")),
        "{titles:#?}"
    );
}
