//! The output formats against each other: on random small books and random
//! settings, every JSONL line is JSON and the JSONL and OBF files hold exactly
//! the lines of the kifu file of the same run, whether or not kifu is written.

use bookminer::book::Book;
use bookminer::mine::{mine, MineOptions};
use bookminer::output::{LineStyle, Orientation, RecordFormat, RecordFormats};
use bookminer::rules::modes::{Linkless, Mode, Rules};
use bookminer::run::{Cancel, Control};
use bookminer::synth::{synthesize, SynthOptions};
use bookminer::walk::Start;
use proptest::prelude::*;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn run(bytes: &[u8], options: &MineOptions) {
    let book = Book::from_bytes("synth.dat", bytes.to_vec()).unwrap();
    let cancel = AtomicBool::new(false);
    mine(
        book,
        &Start::initial(),
        options,
        Control { cancel: Cancel::new(&cancel), phase: &mut |_| {}, progress: &mut |_| {} },
    )
    .unwrap();
}

fn read(dir: &Path, mode: Mode, format: RecordFormat) -> String {
    let path = dir.join(format!("mode{}.{}", mode.number(), format.extension()));
    String::from_utf8(std::fs::read(path).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn jsonl_and_obf_carry_exactly_the_kifu_lines(
        positions in 50usize..1500,
        seed in 0u64..1000,
        min_gap in 1i32..4,
        as_walked: bool,
        pass_ps: bool,
        unique_lines: bool,
        report_linkless: bool,
        bom: bool,
    ) {
        let mut bytes = Vec::new();
        synthesize(&SynthOptions { positions, seed, perturb: 0.1 }, &mut bytes).unwrap();
        let with_kifu = tempfile::tempdir().unwrap();
        let without_kifu = tempfile::tempdir().unwrap();
        let mut options = MineOptions {
            modes: Mode::ALL.to_vec(),
            rules: Rules { min_gap, linkless: if report_linkless { Linkless::Report } else { Linkless::Skip } },
            style: LineStyle {
                orientation: if as_walked { Orientation::AsWalked } else { Orientation::F5 },
                pass_token: if pass_ps { "PS".into() } else { String::new() },
            },
            formats: RecordFormats::of(&RecordFormat::ALL),
            bom,
            unique_lines,
            out_dir: with_kifu.path().to_path_buf(),
            output: None,
            window: bookminer::window::Window::NONE,
        };
        run(&bytes, &options);
        options.formats = RecordFormats::of(&[RecordFormat::Jsonl, RecordFormat::Obf]);
        options.out_dir = without_kifu.path().to_path_buf();
        run(&bytes, &options);
        let left = std::fs::read_dir(without_kifu.path()).unwrap().count();
        prop_assert_eq!(left, 9, "JSONL and OBF per mode and the manifest, and no kifu file kept only to find repeats");

        for mode in Mode::ALL {
            let kifu = read(with_kifu.path(), mode, RecordFormat::Kifu);
            let kifu = if bom { kifu.strip_prefix('\u{feff}').expect("a BOM") } else { kifu.as_str() };
            let lines: Vec<&str> = kifu.lines().collect();
            let jsonl = read(with_kifu.path(), mode, RecordFormat::Jsonl);
            let mut from_json = Vec::new();
            for line in jsonl.lines() {
                let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
                prop_assert_eq!(value["mode"].as_u64(), Some(u64::from(mode.number())));
                prop_assert_eq!(value["board"].as_str().map(str::len), Some(64));
                from_json.push(value["kifu"].as_str().expect("a kifu string").to_string());
            }
            prop_assert_eq!(&from_json, &lines);
            let obf = read(with_kifu.path(), mode, RecordFormat::Obf);
            let from_obf: Vec<&str> = obf.lines().map(|l| l.split_once(" % ").expect("a kifu comment").1).collect();
            prop_assert_eq!(&from_obf, &lines);
            prop_assert_eq!(read(without_kifu.path(), mode, RecordFormat::Jsonl), jsonl, "the same records without kifu");
            prop_assert_eq!(read(without_kifu.path(), mode, RecordFormat::Obf), obf);
        }
    }
}
