//! `kvarn.Model`: a model file's network, evaluated on NumPy batches by Kvarn's own CPU
//! inference, so that Python sees the numbers Kvarn's players and self-play see.

use std::path::Path;

use kvarn_model::{DeviceChoice, Inference, InferencePath, ModelHeader, Precision, file};
use numpy::ndarray::Array2;
use numpy::{PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::error::refused;
use crate::game::Rules;

/// A float32 matrix handed to Python.
type Matrix<'py> = Bound<'py, PyArray2<f32>>;

/// A `.kvmodel` (or `.safetensors`) file's network on the CPU, in `precision` (`auto`,
/// `f32`, `bf16` or `int8`; `auto` is bf16 where the CPU has AMX, 32-bit elsewhere).
#[pyclass(frozen, module = "kvarn")]
pub struct Model {
    inference: Inference,
    header: ModelHeader,
}

#[pymethods]
impl Model {
    #[new]
    #[pyo3(signature = (path, precision = "auto"))]
    fn new(path: &str, precision: &str) -> PyResult<Model> {
        let request = Precision::parse_request(precision).map_err(refused)?;
        let device = DeviceChoice::Cpu.device().map_err(refused)?;
        let (network, header) = file::load(Path::new(path), &device).map_err(refused)?;
        let inference =
            Inference::new(&network, InferencePath::Fastest, request).map_err(refused)?;
        Ok(Model { inference, header })
    }

    /// The rules it was trained for.
    #[getter]
    fn rules(&self) -> Rules {
        Rules(self.header.rules)
    }

    /// The precision its products run in here: `f32`, `bf16` or `int8`.
    #[getter]
    fn precision(&self) -> &'static str {
        self.inference.precision().name()
    }

    /// Features of one position (`Rules.input_len`).
    #[getter]
    fn input_len(&self) -> usize {
        kvarn_game::encoding::input_len(&self.header.rules)
    }

    /// Policy outputs (`Rules.actions`).
    #[getter]
    fn actions(&self) -> usize {
        kvarn_game::ActionSpace::new(&self.header.rules).len()
    }

    /// The file's header (rules, architecture, provenance, the measured player) as JSON.
    #[getter]
    fn header(&self) -> PyResult<String> {
        serde_json::to_string(&self.header).map_err(refused)
    }

    /// Evaluates a batch of observations (`float32[batch, input_len]`, as
    /// `BatchSim.observe` and `Game.observation` write them): policy logits
    /// (`float32[batch, actions]`, over every action; mask them with the legal actions) and
    /// win/draw/loss probabilities for the player to move (`float32[batch, 3]`).
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        observations: PyReadonlyArray2<'py, f32>,
    ) -> PyResult<(Matrix<'py>, Matrix<'py>)> {
        let [batch, columns] = [observations.shape()[0], observations.shape()[1]];
        let input_len = self.input_len();
        if columns != input_len {
            return Err(refused(format!(
                "observations have {columns} columns; this model reads {input_len} ({})",
                self.header.rules
            )));
        }
        // `as_slice` takes Fortran order too, which would be read row by row wrongly.
        let features = observations
            .as_slice()
            .ok()
            .filter(|_| observations.is_c_contiguous())
            .ok_or_else(|| {
                refused("observations must be a C-contiguous float32 array (np.ascontiguousarray)")
            })?;
        let out = self.inference.evaluate(features, batch);
        let logits =
            Array2::from_shape_vec((batch, self.actions()), out.policy_logits).map_err(refused)?;
        let wdl = Array2::from_shape_vec((batch, 3), out.wdl).map_err(refused)?;
        Ok((
            PyArray2::from_owned_array(py, logits),
            PyArray2::from_owned_array(py, wdl),
        ))
    }
}
