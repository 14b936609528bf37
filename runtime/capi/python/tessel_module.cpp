//===- tessel_module.cpp - the Python module `tessel` over the runtime's C API -===//
//
//   import tessel
//   bundle = tessel.Bundle("sweep-out/bundle")          # on the device its target runs on
//   bundle.kernels                                       # ['rms_norm_kernel', ...]
//   bundle.launch("rms_norm_kernel", x_ptr=x, w_ptr=w, y_ptr=y)   # returns which entry and why
//   bundle.synchronize()                                 # GPU launches are asynchronous
//
// Tensors are passed by the kernel's argument names: PyTorch tensors (read through data_ptr(),
// dtype, shape and stride(), so bf16 too), objects with __cuda_array_interface__ (CuPy, Numba)
// for GPU bundles, and NumPy arrays or anything np.asarray takes without a copy for CPU bundles.
// An integer keyword is a dim no tensor gives (CAUSAL=1). Launches go to PyTorch's current
// stream for PyTorch CUDA tensors (as Triton's do), or to `bundle.stream` where it is set. Memory on the wrong side of the bus,
// non-contiguous layouts the kernel does not take, a wrong dtype or size: ValueError before
// anything runs; an unknown kernel: LookupError; anything else: RuntimeError. Only the C API
// (tessel_runtime.h) is used: no C++ type of the runtime crosses into Python.
//
//===----------------------------------------------------------------------===//

#include <tessel/tessel_runtime.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

[[noreturn]] void raise(int code, const std::string &context) {
  std::string message = context + tessel_last_error();
  if (code == TESSEL_INVALID_ARGUMENT)
    throw py::value_error(message);
  if (code == TESSEL_NOT_FOUND) { // LookupError, not KeyError: its message is not a repr
    PyErr_SetString(PyExc_LookupError, message.c_str());
    throw py::error_already_set();
  }
  throw std::runtime_error(message);
}

/// One tensor argument as the C API takes it, with what keeps its memory alive.
struct Tensor {
  std::string name, dtype;
  void *data = nullptr;
  std::vector<int64_t> shape, strides;
  bool onDevice = false; ///< GPU memory (else host memory)
  py::object keepAlive;
};

/// tessel's dtype for a NumPy-style type string ("<f4", "|u1", ...).
std::string dtypeOfTypestr(const std::string &name, const std::string &t) {
  static const std::vector<std::pair<std::string, std::string>> kTypes = {
      {"f4", "f32"}, {"f2", "f16"}, {"f8", "f64"}, {"i1", "i8"},  {"u1", "u8"},
      {"i2", "i16"}, {"i4", "i32"}, {"i8", "i64"}, {"b1", "i1"}};
  if (t.size() == 3 && (t[0] == '<' || t[0] == '|' || t[0] == '='))
    for (const auto &[np, tessel] : kTypes)
      if (t.compare(1, 2, np) == 0)
        return tessel;
  throw py::value_error("tensor '" + name + "' has element type '" + t +
                        "', which tessel kernels do not take");
}

/// tessel's dtype for a torch.dtype's name ("torch.float32").
std::string dtypeOfTorch(const std::string &name, const std::string &t) {
  static const std::vector<std::pair<std::string, std::string>> kTypes = {
      {"torch.float32", "f32"}, {"torch.float16", "f16"}, {"torch.bfloat16", "bf16"},
      {"torch.float64", "f64"}, {"torch.int8", "i8"},     {"torch.uint8", "u8"},
      {"torch.int16", "i16"},   {"torch.int32", "i32"},   {"torch.int64", "i64"},
      {"torch.bool", "i1"}};
  for (const auto &[torch, tessel] : kTypes)
    if (t == torch)
      return tessel;
  throw py::value_error("tensor '" + name + "' is a " + t + " tensor, which tessel kernels do not take");
}

/// Reads an array interface dict (__array_interface__ or __cuda_array_interface__).
void readInterface(Tensor &t, const py::dict &iface) {
  const std::string typestr = py::str(iface["typestr"]);
  t.dtype = dtypeOfTypestr(t.name, typestr); // "<f4": its last digit is the element's bytes
  py::tuple data = iface["data"];
  t.data = reinterpret_cast<void *>(data[0].cast<uintptr_t>());
  if (data[1].cast<bool>())
    throw py::value_error("tensor '" + t.name + "' is read-only");
  for (py::handle d : py::tuple(iface["shape"]))
    t.shape.push_back(d.cast<int64_t>());
  py::object strides = iface.contains("strides") ? py::object(iface["strides"]) : py::none();
  if (!strides.is_none()) {
    const int64_t item = typestr[2] - '0';
    for (py::handle s : py::tuple(strides)) {
      int64_t bytes = s.cast<int64_t>();
      if (bytes % item)
        throw py::value_error("tensor '" + t.name + "' has a stride of " + std::to_string(bytes) +
                              " bytes, not a whole number of elements");
      t.strides.push_back(bytes / item);
    }
  }
}

/// PyTorch's objects a launch uses, looked up once (after PyTorch was imported): its Tensor type,
/// each torch.dtype's tessel name, and the current raw CUDA stream of a device. Kept for the
/// interpreter's life (never destroyed: no Python calls at exit).
struct Torch {
  py::object tensorType, rawStream;
  py::dict dtypes;
};

const Torch *torchIfLoaded() {
  static Torch *torch = nullptr;
  if (torch)
    return torch;
  py::dict modules = py::module_::import("sys").attr("modules");
  if (!modules.contains("torch"))
    return nullptr;
  py::object module = modules["torch"];
  torch = new Torch;
  torch->tensorType = module.attr("Tensor");
  py::object c = module.attr("_C");
  if (py::hasattr(c, "_cuda_getCurrentRawStream"))
    torch->rawStream = c.attr("_cuda_getCurrentRawStream");
  for (const char *name : {"float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16",
                           "int32", "int64", "bool"})
    if (py::hasattr(module, name))
      torch->dtypes[module.attr(name)] =
          py::str(dtypeOfTorch("", "torch." + std::string(name)));
  return torch;
}

Tensor tensorOf(const std::string &name, py::object value) {
  Tensor t;
  t.name = name;
  t.keepAlive = value;
  const Torch *torch = torchIfLoaded();
  const bool isTorch = torch && py::isinstance(value, torch->tensorType);
  if (isTorch || (py::hasattr(value, "data_ptr") && py::hasattr(value, "is_cuda") &&
                  py::hasattr(value, "stride"))) { // PyTorch's tensors and look-alikes
    py::object dtype = value.attr("dtype");
    t.dtype = isTorch && torch->dtypes.contains(dtype)
                  ? py::str(torch->dtypes[dtype]).cast<std::string>()
                  : dtypeOfTorch(name, py::str(dtype));
    t.data = reinterpret_cast<void *>(value.attr("data_ptr")().cast<uintptr_t>());
    for (py::handle d : value.attr("shape"))
      t.shape.push_back(d.cast<int64_t>());
    for (py::handle s : py::tuple(value.attr("stride")()))
      t.strides.push_back(s.cast<int64_t>());
    t.onDevice = value.attr("is_cuda").cast<bool>();
    return t;
  }
  if (py::hasattr(value, "__cuda_array_interface__")) {
    readInterface(t, value.attr("__cuda_array_interface__"));
    t.onDevice = true;
    return t;
  }
  if (!py::hasattr(value, "__array_interface__")) {
    // Whatever NumPy can view without copying (a copy would lose the kernel's outputs).
    py::object array = py::module_::import("numpy").attr("asarray")(value);
    if (!py::module_::import("numpy").attr("shares_memory")(array, value).cast<bool>())
      throw py::value_error("tensor '" + name + "' is not an array NumPy can view in place");
    t.keepAlive = array;
    value = array;
  }
  readInterface(t, value.attr("__array_interface__"));
  return t;
}

class Bundle {
public:
  explicit Bundle(const std::string &dir) {
    tessel_bundle *b = nullptr;
    if (int code = tessel_bundle_open(dir.c_str(), &b))
      raise(code, "");
    bundle_.reset(b);
    tessel_device *d = nullptr;
    if (int code = tessel_device_open(tessel_bundle_device_kind(b), &d))
      raise(code, "");
    device_.reset(d);
  }

  std::vector<std::string> kernels() const {
    std::vector<std::string> names;
    for (size_t i = 0; const char *k = tessel_bundle_kernel(bundle_.get(), i); ++i)
      names.push_back(k);
    return names;
  }

  std::string deviceKind() const { return tessel_bundle_device_kind(bundle_.get()); }

  std::string launch(const std::string &kernel, const py::kwargs &args) {
    const bool gpu = deviceKind() != "cpu";
    py::object torchStream = py::none(); // the device of the first PyTorch CUDA tensor
    std::vector<Tensor> tensors;
    std::vector<std::string> dimNames;
    std::vector<int64_t> dimValues;
    for (const auto &[key, value] : args) {
      std::string name = py::str(key);
      if (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value)) {
        dimNames.push_back(name);
        dimValues.push_back(value.cast<int64_t>());
        continue;
      }
      py::object object = py::reinterpret_borrow<py::object>(value);
      Tensor t = tensorOf(name, object);
      if (t.onDevice && torchStream.is_none() && stream_.is_none() && py::hasattr(object, "is_cuda"))
        torchStream = object.attr("get_device")();
      if (t.onDevice != gpu)
        throw py::value_error("tensor '" + name + "' is in " + (t.onDevice ? "GPU" : "host") +
                              " memory; the bundle's kernels run on " + deviceKind());
      tensors.push_back(std::move(t));
    }
    std::vector<tessel_tensor> c(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i)
      c[i] = {tensors[i].name.c_str(),
              tensors[i].data,
              tensors[i].dtype.c_str(),
              int(tensors[i].shape.size()),
              tensors[i].shape.data(),
              tensors[i].strides.empty() ? nullptr : tensors[i].strides.data()};
    std::vector<tessel_dim> dims(dimNames.size());
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = {dimNames[i].c_str(), dimValues[i]};
    // The stream: the one set on the bundle, else PyTorch's current stream for the tensors'
    // device (as Triton launches), else the default stream.
    uintptr_t stream = 0;
    if (!stream_.is_none())
      stream = stream_.cast<uintptr_t>();
    else if (!torchStream.is_none()) {
      const Torch *torch = torchIfLoaded();
      stream = torch && torch->rawStream
                   ? torch->rawStream(torchStream).cast<uintptr_t>()
                   : py::module_::import("torch")
                         .attr("cuda")
                         .attr("current_stream")(torchStream)
                         .attr("cuda_stream")
                         .cast<uintptr_t>();
    }
    if (gpu)
      if (int code = tessel_device_set_stream(device_.get(), reinterpret_cast<void *>(stream)))
        raise(code, "");
    int code;
    {
      py::gil_scoped_release release;
      code = tessel_launch(bundle_.get(), device_.get(), kernel.c_str(), c.data(), c.size(),
                           dims.data(), dims.size());
    }
    if (code)
      raise(code, "");
    return tessel_last_choice();
  }

  void synchronize() {
    int code;
    {
      py::gil_scoped_release release;
      code = tessel_device_synchronize(device_.get());
    }
    if (code)
      raise(code, "");
  }

  py::object stream() const { return stream_; }
  void setStream(py::object stream) {
    if (!stream.is_none() && !py::isinstance<py::int_>(stream))
      throw py::value_error("a stream is an int (a CUstream / hipStream_t handle) or None");
    if (!stream.is_none() && deviceKind() == "cpu" && stream.cast<uintptr_t>() != 0)
      throw py::value_error("the cpu device has no streams");
    stream_ = stream;
  }

private:
  /// The stream launches go to: None follows PyTorch's current stream (the default stream
  /// for other tensors).
  py::object stream_ = py::none();
  struct CloseBundle {
    void operator()(tessel_bundle *b) const { tessel_bundle_close(b); }
  };
  struct CloseDevice {
    void operator()(tessel_device *d) const { tessel_device_close(d); }
  };
  // The bundle is closed before the device it launched on.
  std::unique_ptr<tessel_device, CloseDevice> device_;
  std::unique_ptr<tessel_bundle, CloseBundle> bundle_;
};

} // namespace

PYBIND11_MODULE(tessel, m) {
  m.doc() = "Launch the kernels of a tessel bundle (tuned by `sweep`) on NumPy arrays and "
            "PyTorch tensors, by argument name.";
  m.def("version", &tessel_version, "The runtime library's version.");
  py::class_<Bundle>(m, "Bundle", "A verified bundle, opened on the device its target runs on.")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def_property_readonly("kernels", &Bundle::kernels, "The bundle's kernels by name.")
      .def_property_readonly("device_kind", &Bundle::deviceKind, "'cpu', 'cuda' or 'hip'.")
      .def("launch", &Bundle::launch, py::arg("kernel"),
           "launch(kernel, **tensors_and_dims) -> str: launches `kernel` with its tensors by "
           "argument name (integers: dims no tensor gives); returns which entry ran and why. "
           "Asynchronous on GPUs: call synchronize().")
      .def("synchronize", &Bundle::synchronize, "Waits for every launch so far.")
      .def_property("stream", &Bundle::stream, &Bundle::setStream,
                    "The stream launches go to: an int handle (CUstream / hipStream_t), or None "
                    "(the default): PyTorch's current stream for PyTorch tensors, else the "
                    "default stream.");
}
