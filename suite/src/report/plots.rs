//! The report's SVG plots: speed-up against workers per workload, the computation / overhead /
//! idle split per policy, and the loop schedules' times (plotters).

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::{Results, RAYON};

impl Results {
    /// Every plot: `(file name, title, svg)`.
    pub fn plots(&self) -> Result<Vec<(String, String, String)>, String> {
        let mut out = Vec::new();
        let pmax = self.max_threads();
        for (w, size) in self.workloads() {
            let file = format!("speedup-{}.svg", file_safe(&w));
            let title = format!("{w}:{size}: speedup against workers");
            out.push((file, title.clone(), self.speedup_svg(&w, &size, &title)?));
            let file = format!("split-{}.svg", file_safe(&w));
            let title = format!("{w}:{size}: computation / overhead / idle at {pmax} workers");
            if let Some(svg) = self.split_svg(&w, &size, pmax, &title)? {
                out.push((file, title, svg));
            }
        }
        if let Some(svg) = self.loop_svg(pmax)? {
            out.push((
                "loop-imbalance.svg".to_string(),
                format!("mandelbrot loop: finish-time SD % of mean at {pmax} workers"),
                svg,
            ));
        }
        Ok(out)
    }

    fn speedup_svg(&self, w: &str, size: &str, title: &str) -> Result<String, String> {
        let threads = self.threads();
        let xmax = *threads.last().unwrap_or(&1) as f64;
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .keys(w, size, "join")
            .into_iter()
            .map(|(policy, topo)| {
                let pts = self
                    .rows
                    .iter()
                    .filter(|r| {
                        r.workload == w
                            && r.size == size
                            && r.variant == "join"
                            && r.policy == policy
                            && r.topology == topo
                    })
                    .map(|r| (r.threads as f64, r.speedup))
                    .collect();
                (self.label(&policy, &topo), pts)
            })
            .collect();
        let ymax = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.1))
            .fold(xmax, f64::max)
            * 1.1;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (800, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d(0.0..xmax + 0.5, 0.0..ymax)
                .map_err(plot_err)?;
            chart
                .configure_mesh()
                .x_desc("workers")
                .y_desc("speedup over best sequential")
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (xmax, xmax)],
                    BLACK.mix(0.3).stroke_width(1),
                ))
                .map_err(plot_err)?
                .label("ideal")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.3)));
            for (i, (label, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(plot_err)?
                    .label(label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(plot_err)?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(svg)
    }

    fn split_svg(
        &self,
        w: &str,
        size: &str,
        p: usize,
        title: &str,
    ) -> Result<Option<String>, String> {
        let bars: Vec<(String, [f64; 3])> = self
            .rows
            .iter()
            .filter(|r| {
                r.workload == w
                    && r.size == size
                    && r.variant == "join"
                    && r.threads == p
                    && r.idle_s.is_some()
            })
            .map(|r| {
                let pt = (r.threads as f64 * r.median_s).max(f64::MIN_POSITIVE);
                let pc = |v: Option<f64>| 100.0 * v.unwrap_or(0.0) / pt;
                (
                    self.label(&r.policy, &r.topology),
                    [pc(r.computation_s), pc(r.overhead_s), pc(r.idle_s)],
                )
            })
            .collect();
        if bars.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let colors = [
            RGBColor(76, 153, 76),
            RGBColor(230, 140, 40),
            RGBColor(160, 160, 160),
        ];
        let parts = ["computation", "overhead", "idle"];
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d((0..names.len() as i32).into_segmented(), 0.0..130.0)
                .map_err(plot_err)?;
            let formatter = |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(names.len())
                .x_label_formatter(&formatter)
                .x_label_style(("sans-serif", 12))
                .y_desc("% of workers × time")
                .draw()
                .map_err(plot_err)?;
            for (k, part) in parts.iter().enumerate() {
                let color = colors[k];
                chart
                    .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
                        let lo: f64 = v[..k].iter().sum();
                        let hi = lo + v[k];
                        let mut rect = Rectangle::new(
                            [
                                (SegmentValue::Exact(i as i32), lo),
                                (SegmentValue::Exact(i as i32 + 1), hi),
                            ],
                            color.filled(),
                        );
                        rect.set_margin(0, 0, 6, 6);
                        rect
                    }))
                    .map_err(plot_err)?
                    .label(*part)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(Some(svg))
    }

    fn loop_svg(&self, p: usize) -> Result<Option<String>, String> {
        let bars: Vec<(String, f64)> = self
            .rows
            .iter()
            .filter(|r| r.variant == "loop" && r.threads == p)
            .filter_map(|r| {
                let s = r.schedule.clone().unwrap_or_default();
                let label = if r.policy == RAYON {
                    s
                } else {
                    format!("{s} ({})", r.policy)
                };
                r.sd_pct.map(|v| (label, v))
            })
            .collect();
        if bars.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let ymax = bars.iter().map(|b| b.1).fold(1.0, f64::max) * 1.15;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("mandelbrot loop at {p} workers: finish-time SD % of mean"),
                    ("sans-serif", 20),
                )
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d((0..names.len() as i32).into_segmented(), 0.0..ymax)
                .map_err(plot_err)?;
            let formatter = |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(names.len())
                .x_label_formatter(&formatter)
                .x_label_style(("sans-serif", 11))
                .y_desc("SD of finish times, % of mean")
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
                    let mut rect = Rectangle::new(
                        [
                            (SegmentValue::Exact(i as i32), 0.0),
                            (SegmentValue::Exact(i as i32 + 1), *v),
                        ],
                        Palette99::pick(i).filled(),
                    );
                    rect.set_margin(0, 0, 6, 6);
                    rect
                }))
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(Some(svg))
    }
}

fn plot_err<E: std::fmt::Debug>(e: E) -> String {
    format!("plotting failed: {e:?}")
}

fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
