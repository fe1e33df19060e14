"""PyTorch CPU throughput of the reference network (80 -> 256 -> 256 -> 256 -> 624 policy + 3 value),
the figure Kvarn's inference benchmark compares against. Run in the same minute as Kvarn's own
benchmark and compare ratios, since these machines are noisy.
Setup: python3 -m venv venv && venv/bin/pip install torch numpy; then venv/bin/python scripts/torch_reference_mlp.py (or scripts/bench-inference.sh for the ratio to Kvarn)"""
import torch, time
torch.set_num_threads(2)
inp,h,out=80,256,624
m=torch.nn.Sequential(torch.nn.Linear(inp,h),torch.nn.ReLU(),torch.nn.Linear(h,h),torch.nn.ReLU(),torch.nn.Linear(h,h),torch.nn.ReLU())
pol=torch.nn.Linear(h,out); val=torch.nn.Linear(h,3)
with torch.inference_mode():
  for bs in [1,16,64,256,1024]:
    x=torch.rand(bs,inp)
    iters=max(20,20000//bs)
    for _ in range(3): z=m(x); pol(z); val(z)
    t=time.time()
    for _ in range(iters):
        z=m(x); p=pol(z); v=val(z)
    el=time.time()-t
    fl=2*(inp*h+h*h*2+h*out+h*3)*bs*iters
    print(f"bs {bs:5}: {bs*iters/el:9.0f} evals/s {fl/el/1e9:.2f} GFLOP/s per-call {el/iters*1e6:.1f} us")
