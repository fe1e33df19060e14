//! A burn layer's weights as plain vectors, for the code that runs or writes them outside
//! burn (the CPU kernels, widening, export).

use burn::nn::Linear;

/// A linear layer's weight (`[in, out]`, row-major, as burn and ONNX `MatMul` use it) and
/// bias.
pub(crate) fn linear_parts(layer: &Linear) -> (Vec<f32>, [usize; 2], Vec<f32>) {
    let w = layer.weight.val();
    let dims = w.dims();
    let w: Vec<f32> = w.into_data().try_to_vec::<f32>().expect("f32 weights");
    let b = match &layer.bias {
        Some(b) => b.val().into_data().try_to_vec::<f32>().expect("f32 bias"),
        None => vec![0.0; dims[1]],
    };
    (w, dims, b)
}
