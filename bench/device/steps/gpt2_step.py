# A GPT-2-shaped decoder's single-GPU training step: step time and peak memory, one JSON line per
# configuration (scenarios/validation/h200x1/measured/gpt2_steps.jsonl), to check the compute and
# memory models on a decoder that is not Llama-shaped. Written compactly so that it travels inside
# the device tool's 2,000-character command (gzip + base64); this file is the script as it ran, but
# for the line that finds ../common:
#   python3 bench/device/steps/gpt2_step.py OUT.jsonl
# The model is GPT-2 (openai-community/gpt2* config.json: n_layer, n_embd, n_head, n_positions 1024,
# vocab 50257) as nanoGPT writes it, without dropout: LayerNorm with bias, c_attn Linear(h, 3h) and
# c_proj Linear(h, h) with biases, causal SDPA, GELU (tanh) MLP of 4h with biases, learned positions
# (wpe), the head tied to wte; bf16 parameters, foreach torch.optim.AdamW (bf16 moments), the loss on
# the fp32 logits as the calibration decoder's (decoder.py loss_of). Per configuration: build, 3 warm-up
# steps, 8 timed steps (CUDA-synchronised; median_step_s the 5th of 8 sorted), then one instrumented
# step: memory_allocated after the forward (act_before_loss), after the loss (act_fwd), after the
# backward (grads), and max_memory_allocated over that step (peak), all less the allocation before
# the model was built; params and states (AdamW's m, v after the warm-up) likewise.
import json,time,sys,torch,torch.nn as nn,torch.nn.functional as F
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))  # gpu_timing, decoder
from gpu_timing import Rows,device_info,clocks
V,S=50257,1024
class B(nn.Module):
 def __init__(s,h,a):
  super().__init__();s.a=a;s.l1,s.l2=nn.LayerNorm(h),nn.LayerNorm(h);s.qkv,s.o=nn.Linear(h,3*h),nn.Linear(h,h);s.fc,s.pr=nn.Linear(h,4*h),nn.Linear(4*h,h)
 def forward(s,x):
  b,t,h=x.shape;q,k,v=s.qkv(s.l1(x)).view(b,t,3,s.a,h//s.a).permute(2,0,3,1,4)
  x=x+s.o(F.scaled_dot_product_attention(q,k,v,is_causal=True).transpose(1,2).reshape(b,t,h))
  return x+s.pr(F.gelu(s.fc(s.l2(x)),approximate="tanh"))
class G(nn.Module):
 def __init__(s,L,h,a):
  super().__init__();s.e,s.p=nn.Embedding(V,h),nn.Embedding(S,h);s.bs=nn.ModuleList(B(h,a) for _ in range(L));s.n=nn.LayerNorm(h)
 def forward(s,t):
  x=s.e(t)+s.p(torch.arange(t.shape[1],device=t.device))
  for b in s.bs:x=b(x)
  return s.n(x)@s.e.weight.t()
def A():torch.cuda.synchronize();return torch.cuda.memory_allocated()
def main():
 R=Rows(sys.argv[1]);R(kind="info",**device_info())
 for nm,L,h,a,mb in [("gpt2",12,768,12,8),("gpt2",12,768,12,16),("gpt2-medium",24,1024,16,8),("gpt2-large",36,1280,20,8),("gpt2-xl",48,1600,25,4),("gpt2-xl",48,1600,25,8)]:
  torch.cuda.empty_cache();b0=A();torch.manual_seed(0)
  with torch.device("cuda"):m=G(L,h,a).to(torch.bfloat16)
  o=torch.optim.AdamW(m.parameters(),lr=1e-4,foreach=True);tk=torch.randint(0,V,(mb,S+1),device="cuda")
  def st():
   F.cross_entropy(m(tk[:,:-1]).float().view(-1,V),tk[:,1:].reshape(-1)).backward();o.step();o.zero_grad(set_to_none=True)
  p=A()-b0
  for _ in range(3):st()
  sb=A()-b0-p;ts=[]
  for _ in range(8):
   torch.cuda.synchronize();t0=time.perf_counter();st();torch.cuda.synchronize();ts.append(time.perf_counter()-t0)
  c=clocks();torch.cuda.reset_peak_memory_stats();m0=A();lo=m(tk[:,:-1]);ml=A()-m0
  l=F.cross_entropy(lo.float().view(-1,V),tk[:,1:].reshape(-1));mf=A()-m0;l.backward();del lo,l;mg=A()-m0;o.step();o.zero_grad(set_to_none=True)
  R(kind="gpt2_step",model=nm,layers=L,hidden=h,heads=a,seq=S,vocab=V,micro_batch=mb,mode="plain",params_count=sum(x.numel() for x in m.parameters()),params=p,states=sb,act_before_loss=ml,act_fwd=mf,grads=mg,peak=torch.cuda.max_memory_allocated()-b0,step_s=ts,median_step_s=sorted(ts)[4],**c)
  print(nm,mb,round(sorted(ts)[4]*1e3,2),"ms",round((torch.cuda.max_memory_allocated()-b0)/1e9,3),"GB",flush=True);del m,o
if __name__=="__main__":main()
