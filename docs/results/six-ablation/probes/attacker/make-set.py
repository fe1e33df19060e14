"""The benchmark set of this probe: the positions after the losing moves of the held-out
drawn starts 86 (its decisions 0 and 2), 36 and 76, each won for the side to move, with
their exact values from db/six. Run from the repository's root:

    KVARN=target/release/kvarn python3 docs/results/six-ablation/probes/attacker/make-set.py
"""
import json, os, subprocess, re, zlib, sys
K = os.environ.get('KVARN', 'target/release/kvarn')
starts={'86a':('.BB.WWW./WWBBB... b 1/1 x 0 0',['xd5']),
        '86b':('WBB.WWW./.WBBB... b 0/1 - 1 2',['b4','c5','c4','d3']),
        '36':('.BWWB..W/WBWWB... b 0/1 - 0 0',['b2','c3','b6','d2','d3']),
        '76':('WWBBBW../.WB..W.. b 1/1 x 0 0',['xd5','xd2','xb6','xd3'])}
rows=[]
for name,(pos,mvs) in starts.items():
    for m in mvs:
        out=json.loads(subprocess.check_output([K,'moves','--variant','six','--position',pos,'--moves',m]))
        p=out['position']
        pr=subprocess.check_output([K,'probe','--variant','six','--db','db/six',p]).decode().splitlines()
        head=pr[1]
        mv=re.match(r'\w+ to move: (win|draw|loss)(?: in (\d+) turns)?',head)
        val,dist=mv.group(1),int(mv.group(2) or 0)
        pres=[];legal=0
        for l in pr[2:]:
            parts=l.split()
            legal+=1
            if parts[1]==val: pres.append(parts[0])
        phase='removal' if ' x ' in p else ('placing' if not p.split()[2].startswith('0/0') else 'moving')
        rows.append({'position':p,'phase':phase,'value':val,'distance':dist,'preserving':pres,'legal':legal})
        print(name,m,p,val,dist,len(pres),legal,file=sys.stderr)
hdr={"format":"kvarn-bench-set","version":2,"rules":{"variant":"six","flying":False,"repetition":True,"no_capture_limit":50}}
body=json.dumps(hdr,separators=(',',':'))+'\n'+''.join(json.dumps(r,separators=(',',':'))+'\n' for r in rows)
body+='{"crc32":"%08x"}\n'%zlib.crc32(body.encode())
open(os.path.join(os.path.dirname(__file__), 'after-losing-moves.jsonl'), 'w').write(body)
