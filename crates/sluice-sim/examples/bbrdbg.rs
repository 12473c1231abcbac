use sluice_sim::monitor::summary::Column;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let flow: i64 = a[2].parse().unwrap();
    let out = sluice_sim::run_str(&text, None, &sluice_sim::RunOptions::default()).unwrap();
    for t in &out.tables {
        if t.name != "cwnd" && t.name != "cc_state" {
            continue;
        }
        let names: Vec<&str> = t.columns.iter().map(|c| c.0.as_str()).collect();
        println!("## {} {:?}", t.name, names);
        let n = match &t.columns[0].1 {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Str(v) => v.len(),
        };
        let fi = names.iter().position(|x| *x == "flow").unwrap();
        for i in 0..n {
            let f = match &t.columns[fi].1 {
                Column::I64(v) => v[i],
                Column::F64(v) => v[i] as i64,
                _ => 0,
            };
            if f != flow {
                continue;
            }
            let row: Vec<String> = t
                .columns
                .iter()
                .map(|(_, c)| match c {
                    Column::F64(v) => format!("{:.4}", v[i]),
                    Column::I64(v) => v[i].to_string(),
                    Column::Str(v) => v[i].clone(),
                })
                .collect();
            println!("{}", row.join(","));
        }
    }
}
