//! `ditto bench plots`: SVG plots where a picture says more than a table,
//! each drawn from a measurement it runs itself:
//! - `cycles-per-page-vs-lanes.svg`: the hasher of each configuration
//!   (cosimulated) against the SHA-1 limit of 5,200 / lanes;
//! - `index-throughput-vs-fsms.svg`: the `large` index, uniform workload,
//!   1 to 8 lookup FSMs (cosimulated, every response checked);
//! - `dedup-ratio-vs-table-size.svg`: one seeded workload of shared contents
//!   through the golden model of the whole core, against the index's size.
use crate::bench::{bench_hasher, bench_index};
use crate::HostError;
use ditto_hw::ftl::flash::Geometry;
use ditto_hw::ftl::model::{Command, CoreConfig, CoreModel};
use ditto_hw::ftl::{Op, Stat};
use plotters::prelude::*;
use rand::Rng;
use std::path::{Path, PathBuf};

fn draw_err(path: &Path, e: impl std::fmt::Display) -> HostError {
    HostError::Plot { path: path.to_path_buf(), detail: e.to_string() }
}

/// What the x axis counts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum XAxis {
    /// Whole things (lanes, FSMs): a tick at each integer, labelled as one.
    Count,
    Continuous,
}

/// A line plot of `series` (name, points) with the given axis labels.
pub(crate) fn line_plot(
    path: &Path,
    title: &str,
    (x_label, x_axis): (&str, XAxis),
    y_label: &str,
    series: &[(&str, Vec<(f64, f64)>)],
) -> Result<(), HostError> {
    let root = SVGBackend::new(path, (720, 450)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_err(path, e))?;
    let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let ys = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1));
    let x_max = xs.fold(0.0f64, f64::max);
    let x_max = if x_axis == XAxis::Count { x_max.ceil() + 1.0 } else { x_max * 1.1 };
    let y_max = ys.fold(0.0f64, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(|e| draw_err(path, e))?;
    let whole = |x: &f64| format!("{x:.0}");
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(x_label).y_desc(y_label);
    if x_axis == XAxis::Count {
        mesh.x_labels(x_max as usize + 1).x_label_formatter(&whole);
    }
    mesh.draw().map_err(|e| draw_err(path, e))?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))
            .map_err(|e| draw_err(path, e))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled()))).map_err(|e| draw_err(path, e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw_err(path, e))?;
    root.present().map_err(|e| draw_err(path, e))?;
    Ok(())
}

/// Dedup ratio of one seeded workload (each content written 1 to 4 times to
/// random LPAs) through the golden model with an index of `2^bucket_bits`
/// buckets; returns the ratio found and the ratio offered (duplicate writes
/// over writes, if every duplicate were found).
pub fn dedup_ratio_for_table(bucket_bits: usize, writes: u32, seed: u64) -> (f64, f64) {
    let mut rng = ditto_sim::testkit::rng(seed);
    let mut m = CoreModel::new(CoreConfig {
        lpas: writes,
        geometry: Geometry { devices: 1, blocks_per_device: 256, pages_per_block: 64, reserve_blocks: 2 },
        index_bucket_bits: bucket_bits,
        bloom: true,
        array_wide: true,
        refcount_max: ditto_hw::ftl::REFCOUNT_MAX,
        nvm: ditto_hw::ftl::nvm::NvmConfig::OFF,
    });
    let (mut lpa, mut content) = (0u32, 0u32);
    while lpa < writes {
        for _ in 0..rng.gen_range(1..=4) {
            if lpa < writes {
                let fp = ditto_sim::ditto_core::workload::fp_of(content);
                m.execute(&Command::new(Op::WriteFp, 0, lpa, fp));
                lpa += 1;
            }
        }
        content += 1;
    }
    let found = m.counter(Stat::DuplicateWrites) as f64 / m.counter(Stat::Writes) as f64;
    (found, 1.0 - content as f64 / writes as f64)
}

/// Runs the measurements and writes the three plots into `out`.
pub fn plots(out: &Path, seed: u64) -> Result<Vec<PathBuf>, HostError> {
    std::fs::create_dir_all(out).map_err(|source| HostError::Write { path: out.into(), source })?;
    let mut written = Vec::new();

    // Each stream width's hashers: the configurations', and wide ones of
    // other lane counts, with each width's limit.
    let mut narrow = Vec::new();
    let mut wide = Vec::new();
    for config in ditto_hw::CONFIGS {
        let h = bench_hasher(config, 4 * config.lanes + 8, seed)?;
        let point = (h.lanes as f64, h.steady_cycles_per_page);
        if config.page_stream_bits == 32 {
            narrow.push(point)
        } else {
            wide.push(point)
        }
    }
    for lanes in [4, 8] {
        let h = crate::bench::bench_wide_hasher(lanes, 4 * lanes + 8, seed)?;
        wide.push((lanes as f64, h.steady_cycles_per_page));
    }
    wide.sort_by(|a, b| a.0.total_cmp(&b.0));
    let most = wide.iter().chain(&narrow).map(|p| p.0 as usize).max().unwrap_or(1);
    let limit = |transfers: usize| -> Vec<(f64, f64)> {
        (1..=most).map(|l| (l as f64, ditto_hw::sha1::cycles_per_page_limit(l, transfers))).collect()
    };
    let path = out.join("cycles-per-page-vs-lanes.svg");
    line_plot(
        &path,
        "SHA-1 hashers: steady cycles per page",
        ("lanes", XAxis::Count),
        "cycles per page",
        &[
            ("measured, 32-bit stream (cu)", narrow),
            ("measured, 256-bit stream (wide 4 and 8, large)", wide),
            ("limit: 5,200 / lanes, or 1,024 (32-bit port)", limit(ditto_hw::sha1::PAGE_WORDS)),
            ("limit: 5,200 / lanes, or 128 (256-bit port)", limit(ditto_hw::sha1::wide::PAGE_BEATS)),
        ],
    )?;
    written.push(path);

    let large = ditto_hw::config::LARGE;
    let mut rates = Vec::new();
    for fsms in [1, 2, 4, 8] {
        let r = bench_index(&large, "uniform", fsms, true, 64, 2048, seed)?;
        rates.push((fsms as f64, r.commands_per_kcycle));
    }
    let ideal: Vec<(f64, f64)> = rates.iter().map(|&(m, _)| (m, rates[0].1 * m)).collect();
    let path = out.join("index-throughput-vs-fsms.svg");
    line_plot(
        &path,
        "Fingerprint index (large, 64-cycle memory, half full)",
        ("lookup FSMs", XAxis::Count),
        "INSERTs per 1,000 cycles",
        &[("measured", rates), ("linear in FSMs", ideal)],
    )?;
    written.push(path);

    let runs: Vec<(f64, (f64, f64))> =
        (6..=12).map(|bb| ((8u32 << bb) as f64 / 1000.0, dedup_ratio_for_table(bb, 16_000, seed))).collect();
    let offered = runs[0].1 .1;
    let points: Vec<(f64, f64)> = runs.iter().map(|&(x, (found, _))| (x, 100.0 * found)).collect();
    let path = out.join("dedup-ratio-vs-table-size.svg");
    line_plot(
        &path,
        &format!("Dedup ratio against index size (16,000 writes, {:.0}% duplicates offered)", 100.0 * offered),
        ("index entries (thousands)", XAxis::Continuous),
        "duplicate writes found (%)",
        &[("golden model of the core", points)],
    )?;
    written.push(path);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bigger_index_finds_more_duplicates_and_a_roomy_one_finds_them_all() {
        let runs: Vec<(f64, f64)> = (6..=12).map(|bb| dedup_ratio_for_table(bb, 16_000, 1)).collect();
        for w in runs.windows(2) {
            assert!(w[1].0 >= w[0].0, "{runs:?}");
        }
        let (found, offered) = runs[runs.len() - 1];
        assert!((found - offered).abs() < 1e-9, "32,768 entries hold every content: {runs:?}");
        assert!(runs[0].0 < 0.9 * offered, "512 entries cannot: {runs:?}");
    }
}
