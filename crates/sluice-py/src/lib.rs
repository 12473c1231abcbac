//! # sluice-py
//!
//! PyO3 glue for the private native module `sluice._sluice`. Nothing here simulates, validates
//! or computes statistics: every call goes through `sluice_sim` ([`sluice_sim::run_str`],
//! [`sluice_sim::scenario::load_str`]) and this crate only converts.
//!
//! | item | what it does |
//! |---|---|
//! | `run` | scenario text in, `RunResult` out; the interpreter is released during the run |
//! | `validate` | parse and validate only |
//! | `resolve` | the resolved model (JSON text) and its hash |
//! | `parse_set` | a command-line `PATH=VALUE` as an override (path, Python value) |
//! | `version` | the simulator's version |
//! | `to_pyerr` | the one mapping from Rust errors (and caught panics) to Python exceptions |
//!
//! The exception classes are defined in Python (`python/sluice/errors.py`) and looked up when an
//! error is raised, so `except sluice.ScenarioError` catches what this module raises and the
//! classes carry docstrings and attributes a Python user can read. The public Python API is
//! `sluice.api`; the docstrings of this module live in `python/sluice/_sluice.pyi`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use sluice_sim::scenario::Override;
use sluice_sim::{Column, RunOptions, RunOutput, ScenarioError, SimError, Table};

/// Everything that can make a binding call fail, before it is turned into a Python exception.
enum Failure {
    /// The simulator returned an error (invalid scenario, an output file that could not be written).
    Sim(SimError),
    /// The simulator panicked: a bug in Sluice, never the user's fault.
    Panic { scenario: String, seed: Option<u64>, message: String, source: Option<String>, sets: Vec<String> },
    /// Python stopped the run between two slices: a signal (Ctrl-C raises KeyboardInterrupt)
    /// or an exception from the progress callback, raised again as it was.
    Python(PyErr),
}

impl From<SimError> for Failure {
    fn from(e: SimError) -> Self {
        Failure::Sim(e)
    }
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        Failure::Sim(SimError::Scenario(e))
    }
}

/// Look up an exception class defined in `sluice.errors`.
fn error_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("sluice.errors")?.getattr(name)
}

/// Build a `sluice.errors.<class_name>` instance from positional and keyword arguments.
fn make_error<'py>(
    py: Python<'py>,
    class_name: &str,
    args: impl PyCallArgs<'py>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyErr {
    let built = error_class(py, class_name).and_then(|cls| cls.call(args, kwargs));
    match built {
        Ok(instance) => PyErr::from_value(instance),
        // `sluice.errors` could not be imported (the native module used on its own): say so
        // instead of hiding the original problem.
        Err(e) => e,
    }
}

/// The one mapping from Rust failures to Python exceptions (docs/python.md, "Errors"):
///
/// | Rust | Python |
/// |---|---|
/// | `SimError::Scenario` | `sluice.ScenarioError` (`SluiceError`, `ValueError`) with `.path`, `.allowed` |
/// | `SimError::Io` | `sluice.OutputError` (`SluiceError`, `OSError`) with `.errno`, `.filename` |
/// | a panic | `sluice.SimulationPanic` (`SluiceError`, `RuntimeError`) naming scenario, seed and a repro command |
///
/// A scenario error's message names the file first when the text came from one (`source`):
/// `scenarios/x.toml: flows[0].count: must be at least 1`.
fn to_pyerr(py: Python<'_>, failure: Failure, source: Option<&str>) -> PyErr {
    match failure {
        Failure::Sim(SimError::Scenario(e)) => {
            let kwargs = PyDict::new(py);
            let allowed = e.allowed.clone();
            let set = kwargs
                .set_item("path", e.path.as_str())
                .and_then(|()| kwargs.set_item("allowed", allowed));
            if let Err(err) = set {
                return err;
            }
            // Display gives "path: message" on one line; the class keeps the parts apart too.
            let text = match source {
                Some(file) => format!("{file}: {e}"),
                None => e.to_string(),
            };
            make_error(py, "ScenarioError", (text,), Some(&kwargs))
        }
        Failure::Python(e) => e,
        // Only `Failure::Python` stops a run from here; kept for completeness.
        Failure::Sim(e @ SimError::Stopped { .. }) => pyo3::exceptions::PyRuntimeError::new_err(e.to_string()),
        Failure::Sim(SimError::Io { path, source }) => {
            let errno = source.raw_os_error().unwrap_or(0);
            // OSError prints "[Errno N] ..." itself; drop Rust's " (os error N)" suffix.
            let text = source.to_string();
            let strerror = text.strip_suffix(&format!(" (os error {errno})")).unwrap_or(&text);
            make_error(py, "OutputError", (errno, strerror.to_string(), path), None)
        }
        Failure::Panic { scenario, seed, message, source, sets } => {
            let file = source.unwrap_or_else(|| "SCENARIO.toml".to_string());
            let (seed_text, mut repro) = match seed {
                Some(s) => (s.to_string(), format!("sluice run {file} --seed {s}")),
                None => ("unknown".to_string(), format!("sluice run {file}")),
            };
            for set in sets {
                repro.push_str(&format!(" --set '{}'", set.replace('\'', "'\\''")));
            }
            let message = message.replace('\n', " ");
            let text = format!(
                "simulation panicked (a bug in Sluice, please report it): scenario {scenario:?}, \
                 seed {seed_text}: {message}; reproduce with: {repro}"
            );
            let kwargs = PyDict::new(py);
            let set = kwargs
                .set_item("scenario", scenario)
                .and_then(|()| kwargs.set_item("seed", seed))
                .and_then(|()| kwargs.set_item("reproduce", repro));
            if let Err(err) = set {
                return err;
            }
            make_error(py, "SimulationPanic", (text,), Some(&kwargs))
        }
    }
}

/// The text a panic was raised with.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// After a panic, find the scenario's name and the seed the run used, for the error message.
/// Parsing is cheap and deterministic; if it fails (or panics) too, fall back to what we have.
fn describe_run(text: &str, seed: Option<u64>, overrides: &[Override]) -> (String, Option<u64>) {
    match catch_unwind(|| sluice_sim::scenario::load_str_with(text, seed, overrides)) {
        Ok(Ok(model)) => (model.name.clone(), Some(model.seed)),
        _ => ("<unparsed>".to_string(), seed),
    }
}

/// Run `f` and turn a panic into [`Failure::Panic`].
fn guarded<T>(
    text: &str,
    seed: Option<u64>,
    source: Option<&str>,
    overrides: &[Override],
    f: impl FnOnce() -> Result<T, Failure>,
) -> Result<T, Failure> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let message = panic_message(payload.as_ref());
            let (scenario, seed) = describe_run(text, seed, overrides);
            // The overrides as `--set PATH=VALUE` arguments, values in TOML.
            let sets = overrides.iter().map(|o| format!("{}={}", o.path, o.value)).collect();
            Err(Failure::Panic { scenario, seed, message, source: source.map(str::to_string), sets })
        }
    }
}

/// A Python value as a TOML value: bool, int, float, str, and lists and dicts of them.
fn to_toml(v: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    let bad = |what: String| pyo3::exceptions::PyTypeError::new_err(format!("overrides[{at:?}]: {what}"));
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map(toml::Value::Integer).map_err(|_| bad("an integer beyond the 64-bit range of TOML".into()));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return v.try_iter()?.map(|x| to_toml(&x?, at)).collect::<PyResult<Vec<_>>>().map(toml::Value::Array);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let k: String = k.extract().map_err(|_| bad(format!("a table key must be a str, not {}", type_name(&k))))?;
            t.insert(k, to_toml(&x, at)?);
        }
        return Ok(toml::Value::Table(t));
    }
    Err(bad(format!("a TOML value is a bool, int, float, str, list or dict, not {}", type_name(v))))
}

/// A TOML value as a Python value (dates, which no scenario field takes, as their text).
fn to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => PyString::new(py, s).into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => PyFloat::new(py, *f).into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        toml::Value::Array(a) => PyList::new(py, a.iter().map(|x| to_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any(),
        toml::Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// The `overrides` argument: a dict from dotted path to value, in its order.
fn overrides_of(overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Override>> {
    let Some(d) = overrides else { return Ok(Vec::new()) };
    d.iter()
        .map(|(k, v)| {
            let path: String = k.extract().map_err(|_| pyo3::exceptions::PyTypeError::new_err(format!("overrides: a key is a dotted path (str), not {}", type_name(&k))))?;
            let value = to_toml(&v, &path)?;
            Ok(Override::new(path, value))
        })
        .collect()
}

/// The result of one run: the summary JSON (the contract in docs/summary.md), the result tables and
/// the files written. `sluice.api.run` turns it into DataFrames.
#[pyclass(frozen, module = "sluice._sluice")]
struct RunResult {
    /// The summary as JSON text.
    #[pyo3(get)]
    summary_json: String,
    /// Files written (pcap), relative to the output directory.
    #[pyo3(get)]
    files: Vec<String>,
    tables: Vec<Table>,
}

#[pymethods]
impl RunResult {
    /// Result tables: table name -> column name -> list of values (float, int or str).
    #[getter]
    fn tables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for table in &self.tables {
            let columns = PyDict::new(py);
            for (name, column) in &table.columns {
                let list = match column {
                    Column::F64(v) => PyList::new(py, v)?,
                    Column::I64(v) => PyList::new(py, v)?,
                    Column::Str(v) => PyList::new(py, v)?,
                };
                columns.set_item(name, list)?;
            }
            out.set_item(&table.name, columns)?;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
        format!(
            "RunResult(summary_json=<{} chars>, tables={:?}, files={:?})",
            self.summary_json.len(),
            names,
            self.files
        )
    }
}

impl From<RunOutput> for RunResult {
    fn from(out: RunOutput) -> Self {
        RunResult { summary_json: out.summary.to_json(), files: out.files, tables: out.tables }
    }
}

/// Parse, validate and run a scenario given as TOML text; see `_sluice.pyi`.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, out_dir = None, *, source = None, progress = None, overrides = None))]
fn run(
    py: Python<'_>,
    scenario: &str,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    source: Option<&str>,
    progress: Option<Py<PyAny>>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<RunResult> {
    let opts = RunOptions { out_dir, overrides: overrides_of(overrides)? };
    // The run holds no Python objects, so other Python threads (progress bars, pools) go on.
    // Between slices of events it takes the interpreter back for a moment: to handle signals
    // (Ctrl-C stops the run with KeyboardInterrupt) and to report progress.
    let result = py.detach(|| {
        guarded(scenario, seed, source, &opts.overrides, || {
            let mut stopped = None;
            let mut observe = |now: f64, end: f64| {
                let r = Python::attach(|py| {
                    py.check_signals()?;
                    if let Some(cb) = &progress {
                        cb.call1(py, (now, end))?;
                    }
                    Ok::<(), PyErr>(())
                });
                r.map_err(|e| stopped = Some(e)).is_ok()
            };
            match sluice_sim::run_str_observed(scenario, seed, &opts, &mut observe) {
                Ok(out) => Ok(out),
                Err(SimError::Stopped { .. }) => Err(Failure::Python(stopped.take().expect("stopped by Python"))),
                Err(e) => Err(e.into()),
            }
        })
    });
    result.map(RunResult::from).map_err(|f| to_pyerr(py, f, source))
}

/// Parse and validate a scenario without running it; see `_sluice.pyi`.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, *, source = None, overrides = None))]
fn validate(py: Python<'_>, scenario: &str, seed: Option<u64>, source: Option<&str>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let overrides = overrides_of(overrides)?;
    let result = py.detach(|| {
        guarded(scenario, seed, source, &overrides, || {
            sluice_sim::scenario::load_str_with(scenario, seed, &overrides)?;
            Ok(())
        })
    });
    result.map_err(|f| to_pyerr(py, f, source))
}

/// The resolved model as JSON text and its hash; see `_sluice.pyi`.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, *, source = None, overrides = None))]
fn resolve(py: Python<'_>, scenario: &str, seed: Option<u64>, source: Option<&str>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<(String, String)> {
    let overrides = overrides_of(overrides)?;
    let result = py.detach(|| {
        guarded(scenario, seed, source, &overrides, || {
            let r = sluice_sim::scenario::resolve(scenario, seed, &overrides)?;
            Ok((r.model.to_string(), r.model_hash))
        })
    });
    result.map_err(|f| to_pyerr(py, f, source))
}

/// A command-line `PATH=VALUE` as `(path, value)`; see `_sluice.pyi`.
#[pyfunction]
fn parse_set<'py>(py: Python<'py>, arg: &str) -> PyResult<(String, Bound<'py, PyAny>)> {
    let o = Override::parse_arg(arg).map_err(pyo3::exceptions::PyValueError::new_err)?;
    Ok((o.path, to_py(py, &o.value)?))
}

/// Each queue's resolved discipline (defaults filled in), as JSON; see `_sluice.pyi`.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, *, source = None, overrides = None))]
fn explain(py: Python<'_>, scenario: &str, seed: Option<u64>, source: Option<&str>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
    let overrides = overrides_of(overrides)?;
    let result = py.detach(|| {
        guarded(scenario, seed, source, &overrides, || {
            let model = sluice_sim::scenario::load_str_with(scenario, seed, &overrides)?;
            let queues: Vec<serde_json::Value> = model
                .links
                .iter()
                .flat_map(|l| [&l.ab, &l.ba])
                .map(|d| serde_json::json!({ "name": d.queue_name, "params": d.qdisc }))
                .collect();
            Ok(serde_json::Value::Array(queues).to_string())
        })
    });
    result.map_err(|f| to_pyerr(py, f, source))
}

/// The simulator's version.
#[pyfunction]
fn version() -> &'static str {
    sluice_sim::VERSION
}

/// Raise a Rust panic on purpose, through the same guard as `run` (tests the panic mapping).
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, *, source = None, overrides = None))]
fn _panic_for_test(py: Python<'_>, scenario: &str, seed: Option<u64>, source: Option<&str>, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let overrides = overrides_of(overrides)?;
    let result: Result<(), Failure> = py.detach(|| {
        guarded(scenario, seed, source, &overrides, || panic!("deliberate panic for a test"))
    });
    result.map_err(|f| to_pyerr(py, f, source))
}

#[pymodule]
fn _sluice(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RunResult>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(parse_set, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
