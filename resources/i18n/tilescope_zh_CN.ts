<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BackendCompare</name>
    <message>
        <source>Interpreter vs GPU</source>
        <extracomment>the marks&apos; colour: apart from the red × of out-of-bounds programs and the wave colours</extracomment>
        <translation>解释器对比 GPU</translation>
    </message>
    <message>
        <source>Run the launch under the interpreter and on the GPU, compare the outputs and mark the programs whose outputs differ</source>
        <translation>在解释器和 GPU 上各运行一次这次启动，比较输出，并标出输出不一致的程序</translation>
    </message>
    <message>
        <source>needs a CUDA GPU: {why}</source>
        <translation>需要 CUDA GPU：{why}</translation>
    </message>
    <message>
        <source>no CUDA device</source>
        <translation>没有 CUDA 设备</translation>
    </message>
    <message>
        <source>the interpreter&apos;s time budget ran out</source>
        <translation>解释器的时间预算已用完</translation>
    </message>
    <message>
        <source>the Programs field&apos;s window</source>
        <translation>“程序”栏给出的窗口</translation>
    </message>
    <message>
        <source>running all of them under the interpreter would take too long</source>
        <translation>在解释器下全部运行会耗时过长</translation>
    </message>
    <message>
        <source>Compared programs {window} of {n:,} only ({why}).</source>
        <translation>只比较了 {n:,} 个程序中的 {window}（{why}）。</translation>
    </message>
    <message>
        <source>Interpreter and GPU agree on all {n:,} output elements (within {atol:.3g} + {rtol:.3g}×|value|).</source>
        <translation>解释器与 GPU 在全部 {n:,} 个输出元素上一致（容差 {atol:.3g} + {rtol:.3g}×|值|）。</translation>
    </message>
    <message>
        <source>{n:,} of {total:,} output elements differ between the interpreter and the GPU (largest gap {gap:.3g}); the {p:,} programs that wrote them are marked in the grid.</source>
        <translation>{total:,} 个输出元素中有 {n:,} 个在解释器与 GPU 之间不一致（最大差 {gap:.3g}）；写入它们的 {p:,} 个程序已在网格中标出。</translation>
    </message>
    <message>
        <source>{k:,} of them were written by several programs or none, and are not marked.</source>
        <translation>其中 {k:,} 个由多个程序写入或无程序写入，未标出。</translation>
    </message>
    <message>
        <source>Not compared: {names} (which of their elements those programs wrote cannot be told).</source>
        <translation>未比较：{names}（无法判断这些程序写了其中哪些元素）。</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare runs</source>
        <translation>比较运行</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>run #{id}</source>
        <translation>运行 #{id}</translation>
    </message>
    <message>
        <source>metric ({unit})</source>
        <translation>指标（{unit}）</translation>
    </message>
    <message>
        <source>no parameter</source>
        <translation>没有参数</translation>
    </message>
    <message>
        <source>Run #{a} vs run #{b}: {what} changed. Highlighted rows differ; the difference column is B relative to A.</source>
        <translation>运行 #{a} 对比运行 #{b}：{what} 有变化。高亮的行不同；“差异”列是 B 相对 A 的变化。</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>vs torch</source>
        <translation>对比 torch</translation>
    </message>
    <message>
        <source>check</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
</context>
<context>
    <name>CompileView</name>
    <message>
        <source>No compile facts: the interpreter does not compile.
It runs the kernel&apos;s Python body on the CPU, so there are no registers, shared memory or IR to show. Run on the GPU to see them.</source>
        <extracomment>the order a reader goes down the compiler: Triton IR, its GPU form, LLVM IR, PTX, machine code</extracomment>
        <translation>没有编译信息：解释器不做编译。
它在 CPU 上运行内核的 Python 代码，因此没有寄存器、共享内存或 IR 可显示。在 GPU 上运行即可看到。</translation>
    </message>
    <message>
        <source>No run yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <source>registers</source>
        <extracomment>the architectures the target chooser offers (data-centre Ampere, Ada, Hopper, Blackwell) how long the target chooser waits for the choice to rest before asking for a compile (ms) ``CompileFacts.occupancy_limiter``&apos;s words, shown translated</extracomment>
        <translation>寄存器</translation>
    </message>
    <message>
        <source>shared memory</source>
        <translation>共享内存</translation>
    </message>
    <message>
        <source>warps</source>
        <translation>warp 数</translation>
    </message>
    <message>
        <source>blocks</source>
        <translation>块数</translation>
    </message>
    <message>
        <source>registers / thread</source>
        <translation>寄存器 / 线程</translation>
    </message>
    <message>
        <source>32-bit registers each thread holds (n_regs)</source>
        <translation>每个线程占用的 32 位寄存器数（n_regs）</translation>
    </message>
    <message>
        <source>spills</source>
        <translation>溢出</translation>
    </message>
    <message>
        <source>registers spilled to local memory (slow): 0 is what you want</source>
        <translation>溢出到本地内存的寄存器（慢）：最好为 0</translation>
    </message>
    <message>
        <source>shared memory per program (metadata.shared)</source>
        <translation>每个程序的共享内存（metadata.shared）</translation>
    </message>
    <message>
        <source>warps per program (32 threads each)</source>
        <translation>每个程序的 warp 数（每个 32 线程）</translation>
    </message>
    <message>
        <source>software-pipelining stages</source>
        <translation>软件流水线级数</translation>
    </message>
    <message>
        <source>programs per SM</source>
        <translation>每个 SM 的程序数</translation>
    </message>
    <message>
        <source>how many programs fit on one SM at once</source>
        <translation>一个 SM 同时能容纳多少个程序</translation>
    </message>
    <message>
        <source>occupancy limited by</source>
        <translation>占用率受限于</translation>
    </message>
    <message>
        <source>the resource that stops more programs fitting</source>
        <translation>使更多程序无法驻留的资源</translation>
    </message>
    <message>
        <source>active warps</source>
        <translation>活跃 warp</translation>
    </message>
    <message>
        <source>resident warps / the SM&apos;s maximum</source>
        <translation>驻留 warp 数 / SM 上限</translation>
    </message>
    <message>
        <source>waves</source>
        <translation>波次</translation>
    </message>
    <message>
        <source>programs / (SMs × programs per SM): a tail wave below 1 idles SMs</source>
        <translation>程序数 / (SM 数 × 每 SM 程序数)：不足 1 的尾波会让 SM 空闲</translation>
    </message>
    <message>
        <source>Find in this IR (Enter: next, Shift+Enter: previous)</source>
        <translation>在此 IR 中查找（Enter：下一个，Shift+Enter：上一个）</translation>
    </message>
    <message>
        <source>Previous match</source>
        <translation>上一个匹配</translation>
    </message>
    <message>
        <source>Next match</source>
        <translation>下一个匹配</translation>
    </message>
    <message>
        <source>Triton kept no IR text for this run.</source>
        <translation>Triton 未保留这次运行的 IR 文本。</translation>
    </message>
    <message>
        <source>Compile the kernel, at the parameters shown, for this GPU architecture (on this machine: no GPU needed)</source>
        <translation>按当前参数为此 GPU 架构编译内核（在本机进行：无需 GPU）</translation>
    </message>
    <message>
        <source>last run</source>
        <translation>上次运行</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>Compile again for the chosen target, with the parameters shown now</source>
        <translation>按当前显示的参数，为所选目标重新编译</translation>
    </message>
    <message>
        <source>Compile for:</source>
        <translation>编译目标：</translation>
    </message>
    <message>
        <source>this GPU ({name}): last run</source>
        <translation>本机 GPU（{name}）：上次运行</translation>
    </message>
    <message>
        <source>Compiling {kernel} for {target}…</source>
        <translation>正在为 {target} 编译 {kernel}…</translation>
    </message>
    <message>
        <source>Could not compile for {target}: {why}</source>
        <translation>无法为 {target} 编译：{why}</translation>
    </message>
    <message>
        <source>the parameters changed since: press Compile to update</source>
        <translation>参数已改变：按“编译”以更新</translation>
    </message>
    <message>
        <source>{n} (registers spilled to local memory: slow)</source>
        <translation>{n}（寄存器溢出到本地内存：慢）</translation>
    </message>
    <message>
        <source>{warps} ({threads} threads / program)</source>
        <translation>{warps}（{threads} 线程 / 程序）</translation>
    </message>
    <message>
        <source>{waves:.2f} ({n:,} programs on {sms} SMs)</source>
        <translation>{waves:.2f}（{n:,} 个程序，{sms} 个 SM）</translation>
    </message>
    <message>
        <source>{waves:.2f} ({n:,} programs)</source>
        <translation>{waves:.2f}（{n:,} 个程序）</translation>
    </message>
    <message>
        <source>{n} match</source>
        <translation>{n} 处匹配</translation>
    </message>
    <message>
        <source>{n} matches</source>
        <translation>{n} 处匹配</translation>
    </message>
    <message>
        <source>0 B (none used)</source>
        <translation>0 B（未使用）</translation>
    </message>
</context>
<context>
    <name>Controller</name>
    <message>
        <source>run</source>
        <extracomment>a trace of more programs than this records a window of programs instead (or offers one): the interpreter records a few thousand programs a second, so a grid of a million takes minutes and makes a map nobody can read whole the window then: the first this many programs request kinds that keep the worker busy (a &quot;ping&quot; or &quot;infos&quot; does not) request kinds whose answers a view routes itself (the Compile tab&apos;s targets: app.window.compile_target; regions at full resolution: app.window.full_res) the request kinds as &quot;{what} cancelled&quot; names them</extracomment>
        <translation>运行</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>starting worker…</source>
        <extracomment>told of sweeps, runs and kernels besides the view (the tuning views: app.window.sweep_tabs) told of every trace answer before it is drawn (the Timeline tab, interpreter vs GPU: app.window.compare)</extracomment>
        <translation>正在启动工作进程…</translation>
    </message>
    <message>
        <source>no kernel selected</source>
        <translation>未选择内核</translation>
    </message>
    <message>
        <source>fix the marked parameter first</source>
        <translation>请先修正标记的参数</translation>
    </message>
    <message>
        <source>queued: run</source>
        <translation>已排队：运行</translation>
    </message>
    <message>
        <source>Programs: {why}</source>
        <translation>程序：{why}</translation>
    </message>
    <message>
        <source>This launch has {known:,} programs: recording all of them under the interpreter takes a long time, so only programs 0..{last} are traced (see the Programs field beside Trace).</source>
        <translation>本次启动有 {known:,} 个程序：在解释器下全部记录要很久，因此只追踪程序 0..{last}（见“追踪”旁的“程序”栏）。</translation>
    </message>
    <message>
        <source>Trace all {known:,}</source>
        <translation>追踪全部 {known:,} 个</translation>
    </message>
    <message>
        <source>sweep point 1/{total}: queued</source>
        <translation>扫描点 1/{total}：已排队</translation>
    </message>
    <message>
        <source>sweep point {n}/{total}: resuming</source>
        <translation>扫描点 {n}/{total}：继续中</translation>
    </message>
    <message>
        <source>cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>checking lesson {name}…</source>
        <translation>正在检查课程 {name}…</translation>
    </message>
    <message>
        <source>loading {file}…</source>
        <translation>正在载入 {file}…</translation>
    </message>
    <message>
        <source>The kernel {kernel} is not loaded (open its file first).</source>
        <translation>内核 {kernel} 未载入（请先打开它的文件）。</translation>
    </message>
    <message>
        <source>Load these values</source>
        <translation>载入这组参数</translation>
    </message>
    <message>
        <source>loaded {values} into the parameters</source>
        <translation>已把 {values} 载入参数面板</translation>
    </message>
    <message>
        <source>no such parameter, not loaded</source>
        <translation>没有这个参数，未载入</translation>
    </message>
    <message>
        <source>Sweep point</source>
        <translation>扫描点</translation>
    </message>
    <message>
        <source>drawing the trace ({n:,} programs)…</source>
        <translation>正在绘制追踪（{n:,} 个程序）…</translation>
    </message>
    <message>
        <source>{what} cancelled</source>
        <translation>{what}已取消</translation>
    </message>
    <message>
        <source>queued: trace</source>
        <translation>已排队：追踪</translation>
    </message>
    <message>
        <source>This trace records all {total:,} programs, which takes a while under the interpreter. Programs 0..{last} alone show the pattern in a fraction of the time.</source>
        <translation>本次追踪要记录全部 {total:,} 个程序，在解释器下需要一段时间。只追踪程序 0..{last} 就能看出规律，用时少得多。</translation>
    </message>
    <message>
        <source>Trace programs {window} only</source>
        <translation>只追踪程序 {window}</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>the worker restarted without your kernel file&apos;s kernels</source>
        <translation>工作进程已重启，但没有载入你的内核文件中的内核</translation>
    </message>
    <message>
        <source>restarting worker…</source>
        <translation>正在重启工作进程…</translation>
    </message>
    <message>
        <source>the worker crashed — restarting it</source>
        <translation>工作进程崩溃 — 正在重启</translation>
    </message>
    <message>
        <source>The worker process could not start, so nothing can run. Its last output is under Details.</source>
        <translation>工作进程无法启动，因此什么都不能运行。它最后的输出见“详情”。</translation>
    </message>
    <message>
        <source>worker not running</source>
        <translation>工作进程未运行</translation>
    </message>
    <message>
        <source>worker {level}: {text}</source>
        <translation>工作进程 {level}：{text}</translation>
    </message>
    <message>
        <source>sweep point {n}/{total}: {stage}</source>
        <translation>扫描点 {n}/{total}：{stage}</translation>
    </message>
    <message>
        <source>sweep point {n}/{total} done</source>
        <translation>扫描点 {n}/{total} 完成</translation>
    </message>
    <message>
        <source>Loading was cancelled: {why}</source>
        <translation>载入已取消：{why}</translation>
    </message>
    <message>
        <source>Could not load the kernel file: {why}</source>
        <translation>无法载入内核文件：{why}</translation>
    </message>
    <message>
        <source>(interpreter wall clock)</source>
        <translation>（解释器墙钟时间）</translation>
    </message>
    <message>
        <source>the trace came back empty</source>
        <translation>追踪结果为空</translation>
    </message>
    <message>
        <source>{n:,} of {total:,} programs ({window})</source>
        <translation>{total:,} 个程序中的 {n:,} 个（{window}）</translation>
    </message>
    <message>
        <source>all {total:,} programs</source>
        <translation>全部 {total:,} 个程序</translation>
    </message>
    <message>
        <source>traced {what} in {s:.2f} s</source>
        <translation>已追踪{what}，用时 {s:.2f} 秒</translation>
    </message>
    <message>
        <source>traced {what} ({elements:,} elements) in {s:.2f} s (recording {r:.2f} s)</source>
        <translation>已追踪{what}（{elements:,} 个元素），用时 {s:.2f} 秒（记录 {r:.2f} 秒）</translation>
    </message>
    <message>
        <source>The trace came back but cannot be drawn: {why}</source>
        <translation>追踪已返回，但无法绘制：{why}</translation>
    </message>
    <message>
        <source>Sweep done: {n} points.</source>
        <translation>扫描完成：{n} 个点。</translation>
    </message>
    <message>
        <source>Best: {values}.</source>
        <translation>最佳：{values}。</translation>
    </message>
    <message>
        <source>The sweep stopped after {done} of {total} points ({kind}: {why}). The {done} finished points are kept; {left} remain.</source>
        <translation>扫描在 {total} 个点中的第 {done} 个之后停止（{kind}：{why}）。已完成的 {done} 个点保留；还剩 {left} 个。</translation>
    </message>
    <message>
        <source>Resume sweep</source>
        <translation>继续扫描</translation>
    </message>
    <message>
        <source>Sweep: {kind}: {why}</source>
        <translation>扫描：{kind}：{why}</translation>
    </message>
    <message>
        <source>loaded {names} from {file}</source>
        <translation>已从 {file} 载入 {names}</translation>
    </message>
    <message>
        <source>(the script printed nothing)</source>
        <translation>（脚本没有输出）</translation>
    </message>
    <message>
        <source>#{i} {kernel} grid {grid}</source>
        <translation>#{i} {kernel} 网格 {grid}</translation>
    </message>
    <message>
        <source>Ran {file}: {n} launches captured ({launches}).</source>
        <translation>已运行 {file}：捕获 {n} 次启动（{launches}）。</translation>
    </message>
    <message>
        <source>Ran {file}: {n} launch captured ({launches}).</source>
        <translation>已运行 {file}：捕获 {n} 次启动（{launches}）。</translation>
    </message>
    <message>
        <source>The script raised {error}; the launches before it are kept.</source>
        <translation>脚本抛出 {error}；此前的启动已保留。</translation>
    </message>
    <message>
        <source>It printed {n:,} line(s): see Details.</source>
        <translation>脚本输出了 {n:,} 行：见“详情”。</translation>
    </message>
    <message>
        <source>No winner: {why}.</source>
        <translation>无胜出者：{why}。</translation>
    </message>
</context>
<context>
    <name>CorrectnessView</name>
    <message>
        <source>No check yet.</source>
        <extracomment>errors this many times the tolerance and more get the darkest red</extracomment>
        <translation>尚未校验。</translation>
    </message>
    <message>
        <source>Which output tensor to show</source>
        <translation>显示哪个输出张量</translation>
    </message>
    <message>
        <source>relative error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>mismatched</source>
        <translation>不匹配</translation>
    </message>
    <message>
        <source>never written</source>
        <translation>从未写入</translation>
    </message>
    <message>
        <source>column</source>
        <translation>列</translation>
    </message>
    <message>
        <source>row</source>
        <translation>行</translation>
    </message>
    <message>
        <source>error ÷ tolerance</source>
        <translation>误差 ÷ 容差</translation>
    </message>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>{out} row {row}, col {col} (flat {flat})</source>
        <translation>{out} 第 {row} 行，第 {col} 列（扁平索引 {flat}）</translation>
    </message>
    <message>
        <source>never written (still NaN-poisoned)</source>
        <translation>从未写入（仍是预填的 NaN）</translation>
    </message>
    <message>
        <source>NaN computed where the reference is finite</source>
        <translation>参考值有限，但算出了 NaN</translation>
    </message>
    <message>
        <source> ({ratio:.3g}× the map&apos;s tolerance {scale:.3g})</source>
        <translation>（为图中容差 {scale:.3g} 的 {ratio:.3g}×）</translation>
    </message>
    <message>
        <source>written by {program}</source>
        <translation>由 {program} 写入</translation>
    </message>
    <message>
        <source>colour: error ÷ tolerance{tol}, green ≤ 1×</source>
        <translation>颜色：误差 ÷ 容差{tol}，绿色 ≤ 1×</translation>
    </message>
    <message>
        <source>NaN computed</source>
        <translation>算出 NaN</translation>
    </message>
    <message>
        <source>past the end</source>
        <translation>超出末尾</translation>
    </message>
    <message>
        <source>PASS</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>{n} elements</source>
        <translation>{n} 个元素</translation>
    </message>
    <message>
        <source>an element passes when |out − ref| ≤ atol + rtol·|ref| (tolerances for {dtype})</source>
        <translation>当 |out − ref| ≤ atol + rtol·|ref| 时元素通过（{dtype} 的容差）</translation>
    </message>
    <message>
        <source>{n} of {total} ({pct:.3g}%)</source>
        <translation>{total} 中的 {n} 个（{pct:.3g}%）</translation>
    </message>
    <message>
        <source>no error map</source>
        <translation>没有误差图</translation>
    </message>
    <message>
        <source>, folded {width} per row</source>
        <translation>，每行折叠 {width} 个</translation>
    </message>
    <message>
        <source>error map of {out}, downsampled to {shape}{folded}: each cell is the largest error of a {block} block ({n:,} elements)</source>
        <translation>{out} 的误差图，降采样为 {shape}{folded}：每格是一个 {block} 块中的最大误差（共 {n:,} 个元素）</translation>
    </message>
    <message>
        <source>error map of {out} ({shape}{folded})</source>
        <translation>{out} 的误差图（{shape}{folded}）</translation>
    </message>
    <message>
        <source>(one cell of the downsampled map: the largest error of these)</source>
        <translation>（降采样图中的一格：取这些元素的最大误差）</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>行</translation>
    </message>
    <message>
        <source>cols</source>
        <translation>列</translation>
    </message>
    <message>
        <source>dim {d}</source>
        <translation>维 {d}</translation>
    </message>
    <message>
        <source>stale: the parameters changed since this check — Run to check them</source>
        <translation>已过期：此检查之后参数已更改——请运行以检查新参数</translation>
    </message>
</context>
<context>
    <name>GridView</name>
    <message>
        <source>What a program&apos;s colour means, in the grid and the tile maps</source>
        <translation>程序颜色在网格和分块图中的含义</translation>
    </message>
    <message>
        <source>z slice</source>
        <translation>z 切片</translation>
    </message>
    <message>
        <source>Which z layer of the 3-D program grid to draw</source>
        <translation>绘制三维程序网格的哪一个 z 层</translation>
    </message>
    <message>
        <source>Step through the loop&apos;s iterations</source>
        <translation>逐步播放循环的迭代</translation>
    </message>
    <message>
        <source>Loop iteration to show (far left: all iterations)</source>
        <translation>要显示的循环迭代（最左：全部迭代）</translation>
    </message>
    <message>
        <source>Which loop the slider steps through (loops in source order)</source>
        <translation>滑块步进哪个循环（按源码顺序）</translation>
    </message>
    <message>
        <source>Colour</source>
        <translation>着色</translation>
    </message>
    <message>
        <source> ({n} iterations)</source>
        <translation>（{n} 次迭代）</translation>
    </message>
    <message>
        <source>tile colour = the program that stored the element (else the one that loaded it)</source>
        <translation>格子颜色 = 存储该元素的程序（否则为加载它的程序）</translation>
    </message>
    <message>
        <source>colour = dispatch order: first program {lo} → last {hi}</source>
        <translation>颜色 = 调度顺序：第一个程序 {lo} → 最后一个 {hi}</translation>
    </message>
    <message>
        <source>colour = the wave a program runs in (programs ÷ (SMs × programs per SM))</source>
        <translation>颜色 = 程序所在的波次（程序数 ÷ (SM 数 × 每 SM 程序数)）</translation>
    </message>
    <message>
        <source>colour = how many programs read the element: 1 {lo} → most {hi} (a program: the average over what it loads)</source>
        <translation>颜色 = 读取该元素的程序数：1 {lo} → 最多 {hi}（程序：其加载元素的平均值）</translation>
    </message>
    <message>
        <source>colour = fraction of the program&apos;s lanes masked off: 0% {lo} → 100% {hi}</source>
        <translation>颜色 = 程序中被掩码关闭的通道比例：0% {lo} → 100% {hi}</translation>
    </message>
    <message>
        <source>untouched</source>
        <translation>未访问</translation>
    </message>
    <message>
        <source>no element (padding)</source>
        <translation>无元素（填充）</translation>
    </message>
    <message>
        <source>written by several programs</source>
        <translation>被多个程序写入</translation>
    </message>
    <message>
        <source>written, never read</source>
        <translation>已写入，从未读取</translation>
    </message>
    <message>
        <source>atomics of several programs</source>
        <translation>多个程序的原子操作</translation>
    </message>
    <message>
        <source>{swatch} pale: read by several programs (its first reader&apos;s colour; label ×readers first–last)</source>
        <translation>{swatch} 浅色：被多个程序读取（取第一个读取者的颜色；标注 ×读取者数 首个–末个）</translation>
    </message>
    <message>
        <source>hover: {load} loaded {store} stored {both} both / atomic</source>
        <translation>悬停：{load} 加载 {store} 存储 {both} 两者 / 原子</translation>
    </message>
    <message>
        <source>{target} stored after the loop step</source>
        <translation>{target} 在循环步之后存储</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>by program</source>
        <translation>按程序</translation>
    </message>
    <message>
        <source>by wave</source>
        <translation>按波次</translation>
    </message>
    <message>
        <source>by launch order</source>
        <translation>按启动顺序</translation>
    </message>
    <message>
        <source>by number of readers</source>
        <translation>按读取者数量</translation>
    </message>
    <message>
        <source>by masked-lane fraction</source>
        <translation>按掩码通道比例</translation>
    </message>
    <message>
        <source>Hover a program to light its elements, or an element to see who touched it; click to pin.</source>
        <translation>悬停在程序上可点亮它访问的元素，悬停在元素上可查看谁访问了它；单击以固定。</translation>
    </message>
    <message>
        <source>read</source>
        <extracomment>the words of a tile map&apos;s role (``Panel.role``: &quot;read + written&quot;…) and of the access ops</extracomment>
        <translation>读取</translation>
    </message>
    <message>
        <source>written</source>
        <translation>写入</translation>
    </message>
    <message>
        <source>atomics</source>
        <translation>原子操作</translation>
    </message>
    <message>
        <source>load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>store</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>atomic</source>
        <translation>原子</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>行</translation>
    </message>
    <message>
        <source>cols</source>
        <translation>列</translation>
    </message>
    <message>
        <source>loop {j}</source>
        <translation>循环 {j}</translation>
    </message>
    <message>
        <source>line {n}</source>
        <translation>第 {n} 行</translation>
    </message>
    <message>
        <source>loop at {where}</source>
        <translation>循环位于 {where}</translation>
    </message>
    <message>
        <source>all iterations</source>
        <translation>全部迭代</translation>
    </message>
    <message>
        <source>step {step} of {n}</source>
        <translation>第 {step} 步，共 {n} 步</translation>
    </message>
    <message>
        <source>every lane masked</source>
        <translation>所有通道都被掩码</translation>
    </message>
    <message>
        <source>elements {range}</source>
        <translation>元素 {range}</translation>
    </message>
    <message>
        <source>1 cell = {n} elements</source>
        <translation>1 格 = {n} 个元素</translation>
    </message>
    <message>
        <source>1 cell = {n}</source>
        <translation>1 格 = {n}</translation>
    </message>
    <message>
        <source>stored after the loop</source>
        <translation>在循环之后存储</translation>
    </message>
    <message>
        <source>(the tile this step works towards)</source>
        <translation>（这一步所服务的分块）</translation>
    </message>
    <message>
        <source>({n} elements)</source>
        <translation>（{n} 个元素）</translation>
    </message>
    <message>
        <source>program {pid}</source>
        <translation>程序 {pid}</translation>
    </message>
    <message>
        <source>not recorded: the tracer ran {window}.</source>
        <translation>未记录：追踪器只运行了 {window}。</translation>
    </message>
    <message>
        <source>wave {w}</source>
        <translation>波次 {w}</translation>
    </message>
    <message>
        <source>(step {step} of the loop at {where})</source>
        <translation>（{where} 处循环的第 {step} 步）</translation>
    </message>
    <message>
        <source>masked lanes: {n} of {total} ({frac:.1f}%)</source>
        <translation>被掩码的通道：{total} 中的 {n} 个（{frac:.1f}%）</translation>
    </message>
    <message>
        <source>out-of-bounds lanes: {n}</source>
        <translation>越界通道：{n}</translation>
    </message>
    <message>
        <source>bytes loaded {loaded:,}   stored {stored:,}</source>
        <translation>加载字节 {loaded:,}   存储字节 {stored:,}</translation>
    </message>
    <message>
        <source>this step: bytes loaded {loaded:,}   stored {stored:,}</source>
        <translation>本步：加载字节 {loaded:,}   存储 {stored:,}</translation>
    </message>
    <message>
        <source>(whole program: loaded {loaded:,}   stored {stored:,})</source>
        <translation>（整个程序：加载 {loaded:,}   存储 {stored:,}）</translation>
    </message>
    <message>
        <source>(reads and readers: the most of any of them; writes: the fewest)</source>
        <translation>（读取次数和读取者：取其中最多者；写入：取最少者）</translation>
    </message>
    <message>
        <source>(flat {flat})</source>
        <translation>（扁平索引 {flat}）</translation>
    </message>
    <message>
        <source>updated atomically</source>
        <translation>原子更新</translation>
    </message>
    <message>
        <source>{verb} by several programs</source>
        <translation>被多个程序{verb}</translation>
    </message>
    <message>
        <source>{verb} by no program</source>
        <translation>没有程序{verb}</translation>
    </message>
    <message>
        <source>{verb} by program {pid} {xyz}</source>
        <translation>由程序 {pid} {xyz} {verb}</translation>
    </message>
    <message>
        <source>(at full resolution)</source>
        <translation>（全分辨率）</translation>
    </message>
    <message>
        <source>{verb} by {n} programs: {shown}</source>
        <translation>由 {n} 个程序{verb}：{shown}</translation>
    </message>
    <message>
        <source>reads: {r}   writes: {w}</source>
        <translation>读取：{r}   写入：{w}</translation>
    </message>
    <message>
        <source>readers: {n}</source>
        <translation>读取程序数：{n}</translation>
    </message>
    <message>
        <source>⚠ written by several programs: the result depends on which store lands last (a race) unless they all store the same value.</source>
        <translation>⚠ 被多个程序写入：结果取决于哪次存储最后完成（数据竞争），除非它们存储的值相同。</translation>
    </message>
    <message>
        <source>updated by atomics of several programs: they accumulate, no race.</source>
        <translation>由多个程序的原子操作更新：它们会累加，没有竞争。</translation>
    </message>
    <message>
        <source>untouched: no program loaded or stored it (masked off or never reached, or its program is outside the recorded window).</source>
        <translation>未访问：没有程序加载或存储它（被掩码关闭或从未到达，或其程序在记录窗口之外）。</translation>
    </message>
    <message>
        <source>untouched: no program loaded or stored it (masked off or never reached).</source>
        <translation>未访问：没有程序加载或存储它（被掩码关闭或从未到达）。</translation>
    </message>
    <message>
        <source>PINNED: {what} — click it again or press Esc to unpin.</source>
        <translation>已固定：{what} — 再次单击或按 Esc 取消固定。</translation>
    </message>
    <message>
        <source>programs {first}..{last} of {total}</source>
        <translation>程序 {first}..{last}（共 {total} 个）</translation>
    </message>
    <message>
        <source>programs {box} ({n} of {total})</source>
        <translation>程序 {box}（{n} 个，共 {total} 个）</translation>
    </message>
    <message>
        <source>Recorded {window} — the other programs did not run under the tracer.</source>
        <translation>已记录 {window} — 其余程序没有在追踪器下运行。</translation>
    </message>
    <message>
        <source>near {tensor} (offsets {offsets})</source>
        <translation>靠近 {tensor}（偏移 {offsets}）</translation>
    </message>
    <message>
        <source>outside any tensor&apos;s view</source>
        <translation>不在任何张量的视图内</translation>
    </message>
    <message>
        <source>out of bounds</source>
        <translation>越界</translation>
    </message>
    <message>
        <source>{n} lane</source>
        <translation>{n} 个通道</translation>
    </message>
    <message>
        <source>{n} lanes</source>
        <translation>{n} 个通道</translation>
    </message>
    <message>
        <source>program {pid} {xyz}: {op} at line {line}</source>
        <translation>程序 {pid} {xyz}：第 {line} 行的{op}</translation>
    </message>
    <message>
        <source>⚠ {n} out-of-bounds access</source>
        <translation>⚠ {n} 次越界访问</translation>
    </message>
    <message>
        <source>⚠ {n} out-of-bounds accesses</source>
        <translation>⚠ {n} 次越界访问</translation>
    </message>
    <message>
        <source>these lanes hit no tensor, so no tile map can show them (click one):</source>
        <translation>这些通道没有落在任何张量上，因此分块图无法显示（单击查看）：</translation>
    </message>
    <message>
        <source>1-D grid ({gx},)</source>
        <translation>一维网格 ({gx},)</translation>
    </message>
    <message>
        <source>, folded into rows of {n}</source>
        <translation>，按每行 {n} 个折叠</translation>
    </message>
    <message>
        <source>grid ({dims}): x → , y ↓</source>
        <translation>网格 ({dims})：x → ，y ↓</translation>
    </message>
    <message>
        <source>{n} program</source>
        <translation>{n} 个程序</translation>
    </message>
    <message>
        <source>{n} programs</source>
        <translation>{n} 个程序</translation>
    </message>
    <message>
        <source>&lt;b&gt;Programs&lt;/b&gt; — {count}, {desc}</source>
        <translation>&lt;b&gt;程序&lt;/b&gt; — {count}，{desc}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Programs&lt;/b&gt; — {count},&lt;br&gt;{desc}</source>
        <translation>&lt;b&gt;程序&lt;/b&gt; — {count}，&lt;br&gt;{desc}</translation>
    </message>
    <message>
        <source>scalar</source>
        <translation>标量</translation>
    </message>
    <message>
        <source>(rows of {n})</source>
        <translation>（每行 {n} 个）</translation>
    </message>
    <message>
        <source>(wrapped: {n} rows per column)</source>
        <translation>（折行：每列 {n} 行）</translation>
    </message>
    <message>
        <source>(wrapped: {n} columns per band)</source>
        <translation>（折行：每条带 {n} 列）</translation>
    </message>
    <message>
        <source>⚠ {n} out-of-bounds lane</source>
        <translation>⚠ {n} 个越界通道</translation>
    </message>
    <message>
        <source>⚠ {n} out-of-bounds lanes</source>
        <translation>⚠ {n} 个越界通道</translation>
    </message>
    <message>
        <source>Play the programs wave by wave in launch order, and count the tiles each wave loads</source>
        <translation>按启动顺序逐波次播放程序，并统计每个波次加载的分块数</translation>
    </message>
    <message>
        <source>Hover a program or an element.</source>
        <translation>悬停在程序或元素上。</translation>
    </message>
    <message>
        <source>(the rest in the tooltip)</source>
        <translation>（其余内容见提示）</translation>
    </message>
    <message>
        <source>Launch order</source>
        <extracomment>plots made ahead, one per event-loop turn after the view is first shown: a program grid and three tile maps cover most kernels, so the first trace need not build any</extracomment>
        <translation>启动顺序</translation>
    </message>
    <message>
        <source>Programs start in launch order, as many at once as the GPU holds (a wave). Each wave loads tiles into L2: fewer distinct tiles, more reuse.</source>
        <translation>程序按启动顺序开始，GPU 能同时容纳多少就同时运行多少（一个波次）。每个波次把分块载入 L2：不同的分块越少，复用越多。</translation>
    </message>
    <message>
        <source>Programs resident at once: SMs × programs per SM</source>
        <translation>同时驻留的程序数：SM 数 × 每 SM 程序数</translation>
    </message>
    <message>
        <source>recorded (the kernel&apos;s pids)</source>
        <translation>记录顺序（内核自己的 pid）</translation>
    </message>
    <message>
        <source>row-major by output tile</source>
        <translation>按输出分块行优先</translation>
    </message>
    <message>
        <source>Which order the waves play and the maps light</source>
        <translation>波次播放和分块图点亮的顺序</translation>
    </message>
    <message>
        <source>Programs at once</source>
        <translation>同时运行的程序</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>顺序</translation>
    </message>
    <message>
        <source>Play the waves one after another</source>
        <translation>逐个播放波次</translation>
    </message>
    <message>
        <source>The wave shown</source>
        <translation>当前显示的波次</translation>
    </message>
    <message>
        <source>tiles</source>
        <translation>分块数</translation>
    </message>
    <message>
        <source>wave</source>
        <translation>波次</translation>
    </message>
    <message>
        <source>recorded order</source>
        <translation>记录顺序</translation>
    </message>
    <message>
        <source>row-major</source>
        <translation>行优先</translation>
    </message>
    <message>
        <source>wave {w} of {n}: programs {pids}</source>
        <translation>第 {w} 个波次（共 {n} 个）：程序 {pids}</translation>
    </message>
    <message>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>automatic: {mode}</source>
        <translation>自动：{mode}</translation>
    </message>
    <message>
        <source>chosen automatically: a drawn cell holds several elements, where one colour per program would alias</source>
        <translation>自动选择：一个绘制单元包含多个元素，每个程序一种颜色会产生混叠</translation>
    </message>
    <message>
        <source>chosen automatically: {n} programs are too many for a colour each</source>
        <translation>自动选择：{n} 个程序太多，无法各用一种颜色</translation>
    </message>
    <message>
        <source>recorded</source>
        <translation>记录顺序</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>{swatch} pale: read by several programs (the colour of the last to read it)</source>
        <translation>{swatch} 浅色：被多个程序读取（取最后读取它的程序的颜色）</translation>
    </message>
    <message>
        <source>({n} cells)</source>
        <translation>（{n} 格）</translation>
    </message>
    <message>
        <source>(from the maps)</source>
        <translation>（据分块图）</translation>
    </message>
    <message>
        <source>{n} programs of {total}</source>
        <translation>{total} 个程序中的 {n} 个</translation>
    </message>
    <message>
        <source>{tensors}: no access events of this program</source>
        <translation>{tensors}：没有本程序的访问事件</translation>
    </message>
    <message>
        <source>This trace has no access events</source>
        <translation>这次追踪没有访问事件</translation>
    </message>
    <message>
        <source>No access events of this program: the trace kept them for {kept} only</source>
        <translation>本程序没有访问事件：追踪只保留了{kept}的访问事件</translation>
    </message>
    <message>
        <source>lit from the maps: the cells it wrote, and of those it read only the ones it read last (a tile later programs read too is lit for the last of them).</source>
        <translation>据分块图点亮：它写入的格，以及它读取的格中只有它最后读取的那些（后来的程序也读取的分块，为其中最后一个程序点亮）。</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Metric</source>
        <extracomment>(key, header) of the table&apos;s columns: what a run gave first (its time and throughput), then the parameters (those that differ between runs first), and what is the same for most runs last</extracomment>
        <translation>指标</translation>
    </message>
    <message>
        <source>vs torch</source>
        <translation>对比 torch</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>校验</translation>
    </message>
    <message>
        <source>gpu</source>
        <extracomment>the widest the parameters column starts (it elides on the right, where the unchanged ones are) words of the table&apos;s cells (the backend&apos;s and the check&apos;s), shown translated</extracomment>
        <translation>GPU</translation>
    </message>
    <message>
        <source>interpreter</source>
        <translation>解释器</translation>
    </message>
    <message>
        <source>pass</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>run #{id} on {device}</source>
        <translation>运行 #{id}，设备 {device}</translation>
    </message>
    <message>
        <source>error: {message}</source>
        <translation>错误：{message}</translation>
    </message>
    <message>
        <source>— (interpreter)</source>
        <translation>—（解释器）</translation>
    </message>
    <message>
        <source>Filter runs (kernel, parameters, backend…)</source>
        <translation>筛选运行（内核、参数、后端…）</translation>
    </message>
    <message>
        <source>Reload run</source>
        <translation>载入此运行</translation>
    </message>
    <message>
        <source>Put the selected run&apos;s configuration back in the parameter panel</source>
        <translation>把选中运行的配置放回参数面板</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Select two runs to compare them side by side</source>
        <translation>选中两次运行以并排比较</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the whole history as CSV or JSON</source>
        <translation>把全部历史保存为 CSV 或 JSON</translation>
    </message>
    <message>
        <source>{n} run</source>
        <translation>{n} 次运行</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 次运行</translation>
    </message>
    <message>
        <source>Export history</source>
        <translation>导出历史</translation>
    </message>
    <message>
        <source>CSV table (*.csv);;JSON (*.json)</source>
        <translation>CSV 表格 (*.csv);;JSON (*.json)</translation>
    </message>
    <message>
        <source>SM clock</source>
        <translation>SM 时钟</translation>
    </message>
    <message>
        <source>clocks unknown</source>
        <translation>时钟未知</translation>
    </message>
    <message>
        <source>clocks: </source>
        <translation>时钟：</translation>
    </message>
    <message>
        <source>median {ms} ms, p20–p80 {lo}–{hi} ms</source>
        <translation>中位数 {ms} ms，p20–p80 {lo}–{hi} ms</translation>
    </message>
    <message>
        <source>memory {mem} MHz</source>
        <translation>显存 {mem} MHz</translation>
    </message>
    <message>
        <source>throttled: {why}</source>
        <translation>降频：{why}</translation>
    </message>
</context>
<context>
    <name>KernelPicker</name>
    <message>
        <source>Filter kernels…</source>
        <translation>筛选内核…</translation>
    </message>
    <message>
        <source>Open kernel file…</source>
        <translation>打开内核文件…</translation>
    </message>
    <message>
        <source>Load a Python file that registers Triton kernels (@register)</source>
        <translation>载入注册了 Triton 内核的 Python 文件（@register）</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新载入</translation>
    </message>
    <message>
        <source>No kernel matches the filter.</source>
        <translation>没有符合筛选条件的内核。</translation>
    </message>
    <message>
        <source>metric: {metric}</source>
        <translation>指标：{metric}</translation>
    </message>
    <message>
        <source>from {file}</source>
        <translation>来自 {file}</translation>
    </message>
    <message>
        <source>Open kernel file</source>
        <translation>打开内核文件</translation>
    </message>
    <message>
        <source>Python files (*.py);;All files (*)</source>
        <translation>Python 文件 (*.py);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Reload is for kernels loaded from your own file</source>
        <translation>“重新载入”用于从你自己的文件载入的内核</translation>
    </message>
    <message>
        <source>Reload (changed on disk)</source>
        <translation>重新载入（磁盘上已更改）</translation>
    </message>
    <message>
        <source>{file} changed since it was loaded: reload to use the new code</source>
        <translation>{file} 在载入后已更改：重新载入以使用新代码</translation>
    </message>
    <message>
        <source>Load {file} again</source>
        <translation>再次载入 {file}</translation>
    </message>
</context>
<context>
    <name>Layouts</name>
    <message>
        <source>Save layout as…</source>
        <extracomment>how long the status bar shows what a layout action did (ms)</extracomment>
        <translation>布局另存为…</translation>
    </message>
    <message>
        <source>Keep this arrangement of the panels under a name</source>
        <translation>以一个名字保存当前的面板布置</translation>
    </message>
    <message>
        <source>Restore layout</source>
        <translation>恢复布局</translation>
    </message>
    <message>
        <source>Delete layout</source>
        <translation>删除布局</translation>
    </message>
    <message>
        <source>Save layout</source>
        <translation>保存布局</translation>
    </message>
    <message>
        <source>Name of this layout:</source>
        <translation>布局名称：</translation>
    </message>
    <message>
        <source>A layout needs a name: nothing was saved.</source>
        <translation>布局需要一个名字：未保存。</translation>
    </message>
    <message>
        <source>Layout “{name}” replaced.</source>
        <translation>已替换布局“{name}”。</translation>
    </message>
    <message>
        <source>Layout “{name}” saved.</source>
        <translation>已保存布局“{name}”。</translation>
    </message>
    <message>
        <source>Layout “{name}” could not be restored (damaged): the default layout is shown.</source>
        <translation>无法恢复布局“{name}”（已损坏）：显示默认布局。</translation>
    </message>
    <message>
        <source>Layout “{name}” restored.</source>
        <translation>已恢复布局“{name}”。</translation>
    </message>
    <message>
        <source>Layout “{name}” deleted.</source>
        <translation>已删除布局“{name}”。</translation>
    </message>
    <message>
        <source>(no saved layouts)</source>
        <translation>（没有已保存的布局）</translation>
    </message>
</context>
<context>
    <name>LessonEditor</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Write the file (Ctrl+S); Check saves it too</source>
        <translation>写入文件（Ctrl+S）；“检查”也会保存</translation>
    </message>
    <message>
        <source>Open in external editor</source>
        <translation>用外部编辑器打开</translation>
    </message>
    <message>
        <source>Edit the file in your own editor: the changes appear here when it saves</source>
        <translation>在你自己的编辑器中编辑此文件：保存后改动会显示在这里</translation>
    </message>
    <message>
        <source>The file changed on disk while you had unsaved edits here.</source>
        <translation>你在这里有未保存的修改时，磁盘上的文件被更改了。</translation>
    </message>
    <message>
        <source>Use the file on disk</source>
        <translation>使用磁盘上的文件</translation>
    </message>
    <message>
        <source>Keep my edits</source>
        <translation>保留我的修改</translation>
    </message>
    <message>
        <source>No file</source>
        <translation>没有文件</translation>
    </message>
    <message>
        <source>(unsaved)</source>
        <translation>（未保存）</translation>
    </message>
</context>
<context>
    <name>LessonResultView</name>
    <message>
        <source>never written</source>
        <extracomment>what is wrong with some elements (``WrongElements.kind``), as the table says it</extracomment>
        <translation>从未写入</translation>
    </message>
    <message>
        <source>written by another program</source>
        <translation>被其他程序写入</translation>
    </message>
    <message>
        <source>written by several programs</source>
        <translation>被多个程序写入</translation>
    </message>
    <message>
        <source>written, not in the reference</source>
        <translation>写入了参考解不写的元素</translation>
    </message>
    <message>
        <source>never read</source>
        <translation>从未读取</translation>
    </message>
    <message>
        <source>read by another program</source>
        <translation>被其他程序读取</translation>
    </message>
    <message>
        <source>read by several programs</source>
        <translation>被多个程序读取</translation>
    </message>
    <message>
        <source>read, not in the reference</source>
        <translation>读取了参考解不读的元素</translation>
    </message>
    <message>
        <source>wrong value</source>
        <translation>值错误</translation>
    </message>
    <message>
        <source>loading your file</source>
        <extracomment>where a check stopped (``LessonResult.stage``)</extracomment>
        <translation>载入你的文件</translation>
    </message>
    <message>
        <source>running it</source>
        <translation>运行文件</translation>
    </message>
    <message>
        <source>the lesson&apos;s question</source>
        <translation>本课的问题</translation>
    </message>
    <message>
        <source>out-of-bounds accesses</source>
        <translation>越界访问</translation>
    </message>
    <message>
        <source>which program wrote each element</source>
        <translation>每个元素由哪个程序写入</translation>
    </message>
    <message>
        <source>which program read each element</source>
        <translation>每个元素由哪个程序读取</translation>
    </message>
    <message>
        <source>the output values</source>
        <translation>输出值</translation>
    </message>
    <message>
        <source>loads and stores per program</source>
        <translation>每个程序的加载和存储次数</translation>
    </message>
    <message>
        <source>every check</source>
        <translation>全部检查</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>several</source>
        <translation>多个</translation>
    </message>
    <message>
        <source>{value} (all)</source>
        <translation>{value}（全部）</translation>
    </message>
    <message>
        <source>{values} (mean {mean:.1f})</source>
        <translation>{values}（平均 {mean:.1f}）</translation>
    </message>
    <message>
        <source>Config</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Programs</source>
        <translation>程序数</translation>
    </message>
    <message>
        <source>Masked lanes</source>
        <translation>掩码通道</translation>
    </message>
    <message>
        <source>Interpreter time</source>
        <translation>解释器耗时</translation>
    </message>
    <message>
        <source>&lt;b&gt;Tiles loaded per wave&lt;/b&gt;: yours {mine}; the reference {ref}</source>
        <translation>&lt;b&gt;每个波次加载的分块数&lt;/b&gt;：你的 {mine}；参考解 {ref}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Tile&lt;/b&gt; (BLOCK_M × BLOCK_N × BLOCK_K): {tile}</source>
        <translation>&lt;b&gt;分块&lt;/b&gt;（BLOCK_M × BLOCK_N × BLOCK_K）：{tile}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Programs per wave&lt;/b&gt;: {n}</source>
        <translation>&lt;b&gt;每个波次的程序数&lt;/b&gt;：{n}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Candidates&lt;/b&gt;</source>
        <translation>&lt;b&gt;候选配置&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Timed by the interpreter&apos;s wall clock: it says nothing about a GPU.</source>
        <translation>耗时取自解释器的墙钟时间：不代表 GPU 上的速度。</translation>
    </message>
    <message>
        <source>Show in grid</source>
        <translation>在网格中显示</translation>
    </message>
    <message>
        <source>Draw your kernel&apos;s recorded accesses in the grid view</source>
        <translation>在网格视图中绘制你的内核被记录的访问</translation>
    </message>
    <message>
        <source>Show the reference in grid</source>
        <translation>在网格中显示参考解</translation>
    </message>
    <message>
        <source>Draw the reference solution&apos;s accesses in the grid view</source>
        <translation>在网格视图中绘制参考解的访问</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Elements</source>
        <translation>元素</translation>
    </message>
    <message>
        <source>Yours</source>
        <translation>你的</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>参考解</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Limit</source>
        <translation>上限</translation>
    </message>
    <message>
        <source>Your worst program</source>
        <translation>你最多的程序</translation>
    </message>
    <message>
        <source>Your mean</source>
        <translation>你的平均</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>出错</translation>
    </message>
    <message>
        <source>Not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>Passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>Not yet</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>Edit your file, then press Check.</source>
        <translation>编辑你的文件，然后点“检查”。</translation>
    </message>
    <message>
        <source>, line {line}</source>
        <translation>，第 {line} 行</translation>
    </message>
    <message>
        <source>Checked up to: {stage}{line}</source>
        <translation>检查止于：{stage}{line}</translation>
    </message>
    <message>
        <source>checked in {s:.1f} s</source>
        <translation>检查用时 {s:.1f} 秒</translation>
    </message>
    <message>
        <source>Wrong elements</source>
        <translation>出错的元素</translation>
    </message>
    <message>
        <source>load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>store</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>{n} (program {p})</source>
        <translation>{n}（程序 {p}）</translation>
    </message>
    <message>
        <source>Loads and stores per program</source>
        <translation>每个程序的加载和存储次数</translation>
    </message>
    <message>
        <source>Put this above your kernel on a GPU:</source>
        <translation>在 GPU 上把这段放在你的内核上方：</translation>
    </message>
</context>
<context>
    <name>LessonView</name>
    <message>
        <source>Checking {file}…</source>
        <translation>正在检查 {file}…</translation>
    </message>
    <message>
        <source>Your progress could not be saved: {error}</source>
        <translation>无法保存你的学习进度：{error}</translation>
    </message>
    <message>
        <source>Solution</source>
        <translation>答案</translation>
    </message>
    <message>
        <source>Hints</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Show solution…</source>
        <translation>查看答案…</translation>
    </message>
    <message>
        <source>The reference solution of this lesson</source>
        <translation>本课的参考答案</translation>
    </message>
    <message>
        <source>The solution gives the answer away. Try the hints first, or show it anyway?</source>
        <translation>答案会直接揭晓结果。先试试提示，还是现在就看？</translation>
    </message>
    <message>
        <source>Show the solution</source>
        <translation>查看答案</translation>
    </message>
    <message>
        <source>Not yet</source>
        <translation>先不看</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Save your file, run it under the tracer and compare it with the reference</source>
        <translation>保存文件，在追踪器下运行，并与参考解比较</translation>
    </message>
    <message>
        <source>Your file</source>
        <translation>你的文件</translation>
    </message>
    <message>
        <source>Passed · {n} checks</source>
        <translation>已通过 · 检查 {n} 次</translation>
    </message>
    <message>
        <source>Not passed yet · {n} checks</source>
        <translation>尚未通过 · 检查 {n} 次</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>未开始</translation>
    </message>
    <message>
        <source>{n} hints seen</source>
        <translation>已看 {n} 条提示</translation>
    </message>
    <message>
        <source>Next hint ({n} of {total})</source>
        <translation>下一条提示（{n}/{total}）</translation>
    </message>
    <message>
        <source>No more hints</source>
        <translation>没有更多提示</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>{n} run(s) are not saved yet: the run history is locked by another program. They are kept and will be written when it lets go.</source>
        <translation>{n} 次运行尚未保存：运行历史被另一个程序锁定。它们已被保留，待该程序释放后写入。</translation>
    </message>
    <message>
        <source>{n} run(s) are not saved yet: the disk is full. They are kept and will be written when there is room.</source>
        <translation>{n} 次运行尚未保存：磁盘已满。它们已被保留，待有空间时写入。</translation>
    </message>
    <message>
        <source>{n} run(s) are not saved yet: the run history cannot be written ({detail}). They are kept and will be written when it can be.</source>
        <translation>{n} 次运行尚未保存：无法写入运行历史（{detail}）。它们已被保留，待可以写入时写入。</translation>
    </message>
    <message>
        <source>Some are in memory only: they are lost if Tilescope is closed before then.</source>
        <translation>其中一些只在内存中：若在此之前关闭 Tilescope，它们将丢失。</translation>
    </message>
    <message>
        <source>Throughput</source>
        <extracomment>Live mode re-runs this long after the last valid parameter change</extracomment>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Run a sweep (Sweep…) to see throughput against the swept parameters.</source>
        <translation>运行一次扫描（扫描…），查看吞吐量随扫描参数的变化。</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>No trace yet.

Press Trace (Ctrl+T) to run the kernel under the Triton interpreter and record which program touches which element of which tensor.</source>
        <translation>尚无追踪。

按“追踪”（Ctrl+T）在 Triton 解释器下运行内核，记录哪个程序访问了哪个张量的哪个元素。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Run the kernel: check it and time it</source>
        <translation>运行内核：校验并计时</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Re-run automatically whenever a parameter changes</source>
        <translation>参数一改就自动重新运行</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>Record which program touches which element</source>
        <translation>记录哪个程序访问哪个元素</translation>
    </message>
    <message>
        <source>Sweep…</source>
        <translation>扫描…</translation>
    </message>
    <message>
        <source>Run every combination of one or two parameters</source>
        <translation>运行一个或两个参数的所有组合</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the running request</source>
        <translation>停止正在运行的请求</translation>
    </message>
    <message>
        <source>Resume sweep</source>
        <translation>继续扫描</translation>
    </message>
    <message>
        <source>Run the points an interrupted sweep did not reach</source>
        <translation>运行中断的扫描尚未完成的点</translation>
    </message>
    <message>
        <source>Open kernel file…</source>
        <translation>打开内核文件…</translation>
    </message>
    <message>
        <source>Load a Python file that registers Triton kernels</source>
        <translation>载入注册了 Triton 内核的 Python 文件</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>导出图…</translation>
    </message>
    <message>
        <source>Save the throughput or sweep plot as PNG / SVG</source>
        <translation>把吞吐量图或扫描图保存为 PNG / SVG</translation>
    </message>
    <message>
        <source>Export grid view…</source>
        <translation>导出网格视图…</translation>
    </message>
    <message>
        <source>Save the program grid and tile maps as PNG / SVG</source>
        <translation>把程序网格和分块图保存为 PNG / SVG</translation>
    </message>
    <message>
        <source>Export history…</source>
        <translation>导出历史…</translation>
    </message>
    <message>
        <source>Save every run as CSV or JSON</source>
        <translation>把全部运行保存为 CSV 或 JSON</translation>
    </message>
    <message>
        <source>Run timeout…</source>
        <translation>运行超时…</translation>
    </message>
    <message>
        <source>How long a run may take before the worker is restarted</source>
        <translation>一次运行最长可用多久，超时则重启工作进程</translation>
    </message>
    <message>
        <source>Reset layout</source>
        <translation>重置布局</translation>
    </message>
    <message>
        <source>Put every panel back where it started</source>
        <translation>把所有面板放回初始位置</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Close Tilescope</source>
        <translation>关闭 Tilescope</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Programs:</source>
        <translation>程序：</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Which programs Trace records (empty: all of them).
A:B — program ids A to B−1 (e.g. 0:256)
x0:x1,y0:y1 — a box of a 2-D grid (e.g. 0:8,0:4)
The other programs do not run under the tracer; their elements show as not recorded.</source>
        <translation>“追踪”记录哪些程序（留空：全部）。
A:B — 程序编号 A 到 B−1（例如 0:256）
x0:x1,y0:y1 — 二维网格中的一个矩形（例如 0:8,0:4）
其余程序不在追踪器下运行，它们的元素显示为未记录。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>could not read the run history: {why}</source>
        <translation>无法读取运行历史：{why}</translation>
    </message>
    <message>
        <source>starting worker…</source>
        <translation>正在启动工作进程…</translation>
    </message>
    <message>
        <source>Open kernel file</source>
        <translation>打开内核文件</translation>
    </message>
    <message>
        <source>Python files (*.py);;All files (*)</source>
        <translation>Python 文件 (*.py);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>plot</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Nothing to export: trace the kernel first.</source>
        <translation>没有可导出的内容：请先追踪内核。</translation>
    </message>
    <message>
        <source>Export grid view</source>
        <translation>导出网格视图</translation>
    </message>
    <message>
        <source>grid view</source>
        <translation>网格视图</translation>
    </message>
    <message>
        <source>Could not export the history: {error}</source>
        <translation>无法导出历史：{error}</translation>
    </message>
    <message>
        <source>exported {n} runs to {path}</source>
        <translation>已把 {n} 次运行导出到 {path}</translation>
    </message>
    <message>
        <source>Run {n}</source>
        <translation>运行 {n}</translation>
    </message>
    <message>
        <source>backend: GPU</source>
        <translation>后端：GPU</translation>
    </message>
    <message>
        <source>backend: interpreter (CPU)</source>
        <translation>后端：解释器（CPU）</translation>
    </message>
    <message>
        <source>No run yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <source>device: {name}</source>
        <translation>设备：{name}</translation>
    </message>
    <message>
        <source>No compile facts: {why}</source>
        <translation>没有编译信息：{why}</translation>
    </message>
    <message>
        <source>none reported</source>
        <translation>未报告</translation>
    </message>
    <message>
        <source>the Programs field is not a window of programs</source>
        <translation>“程序”栏不是有效的程序范围</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Throughput / Sweep</source>
        <translation>吞吐量 / 扫描</translation>
    </message>
    <message>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>源码</translation>
    </message>
    <message>
        <source>Correctness</source>
        <translation>正确性</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG vector image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Could not export the {what}: {error}</source>
        <translation>无法导出{what}：{error}</translation>
    </message>
    <message>
        <source>Export history</source>
        <translation>导出历史</translation>
    </message>
    <message>
        <source>CSV table (*.csv);;JSON (*.json)</source>
        <translation>CSV 表格 (*.csv);;JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>window size</source>
        <extracomment>the window&apos;s size before the user&apos;s geometry is restored (the default dock sizes follow it)</extracomment>
        <translation>窗口大小</translation>
    </message>
    <message>
        <source>panel layout</source>
        <translation>面板布局</translation>
    </message>
    <message>
        <source>The saved {what} could not be restored (damaged settings): the default is used.</source>
        <translation>无法恢复保存的{what}（设置已损坏）：已使用默认值。</translation>
    </message>
    <message>
        <source> and </source>
        <translation>和</translation>
    </message>
    <message>
        <source>Could not save the settings in {path} ({why}); they are kept for this session only.</source>
        <translation>无法把设置保存到 {path}（{why}）；这些设置只在本次会话中有效。</translation>
    </message>
    <message>
        <source>Run timeout</source>
        <translation>运行超时</translation>
    </message>
    <message>
        <source>Seconds a run or trace may take before the worker is restarted:</source>
        <translation>一次运行或追踪最多可用的秒数，超时则重启工作进程：</translation>
    </message>
    <message>
        <source>Virtual GPU…</source>
        <translation>虚拟 GPU…</translation>
    </message>
    <message>
        <source>Virtual GPU</source>
        <translation>虚拟 GPU</translation>
    </message>
    <message>
        <source>Without a GPU, a script&apos;s device checks (capability, SM count, shared memory) are answered as this GPU:</source>
        <translation>没有 GPU 时，脚本的设备检查（计算能力、SM 数量、共享内存）按这块 GPU 作答：</translation>
    </message>
    <message>
        <source>restarting the worker on a virtual {gpu}…</source>
        <translation>正在以虚拟 {gpu} 重启工作进程…</translation>
    </message>
    <message>
        <source>a script&apos;s device checks are answered by a virtual {gpu}</source>
        <translation>脚本的设备检查由虚拟 {gpu} 作答</translation>
    </message>
    <message>
        <source>Virtual GPU ({arch})…</source>
        <translation>虚拟 GPU（{arch}）…</translation>
    </message>
    <message>
        <source>Without a GPU, the GPU a script&apos;s device checks are answered as (now {gpu})</source>
        <translation>没有 GPU 时，脚本的设备检查按哪块 GPU 作答（当前：{gpu}）</translation>
    </message>
    <message>
        <source>Virtual GPU (not used: the real GPU answers)</source>
        <translation>虚拟 GPU（未使用：由真实 GPU 作答）</translation>
    </message>
    <message>
        <source>This machine&apos;s GPU ({name}) answers a script&apos;s device checks; a virtual GPU is only used without one</source>
        <translation>本机的 GPU（{name}）回答脚本的设备检查；只有没有 GPU 时才使用虚拟 GPU</translation>
    </message>
    <message>
        <source>the worker is not ready yet</source>
        <translation>工作进程尚未就绪</translation>
    </message>
    <message>
        <source>no kernel selected</source>
        <translation>未选择内核</translation>
    </message>
    <message>
        <source>fix the marked parameter first</source>
        <translation>请先修正标出的参数</translation>
    </message>
    <message>
        <source>Full resolution: {why}</source>
        <translation>全分辨率：{why}</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>线程</translation>
    </message>
    <message>
        <source>Advice</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>Looking for the causes of {kernel} on {target}…</source>
        <translation>正在查找 {kernel} 在 {target} 上变慢的原因…</translation>
    </message>
    <message>
        <source>Compiling for {target} and reading the layouts…</source>
        <translation>正在为 {target} 编译并读取布局…</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>No trace yet.

Press Trace (Ctrl+T) to record on the GPU which program touches which element of which tensor.</source>
        <translation>尚无追踪。

按“追踪”（Ctrl+T）在 GPU 上记录哪个程序访问了哪个张量的哪个元素。</translation>
    </message>
    <message>
        <source>Before any trace: grid ({exprs}) = {dims}: {n} programs</source>
        <translation>追踪之前：网格 ({exprs}) = {dims}：{n} 个程序</translation>
    </message>
</context>
<context>
    <name>MessageBanner</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Details…</source>
        <translation>详情…</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
</context>
<context>
    <name>ParamPanel</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Interpreter (CPU)</source>
        <translation>解释器（CPU）</translation>
    </message>
    <message>
        <source>No kernel selected</source>
        <translation>未选择内核</translation>
    </message>
    <message>
        <source>Where the kernel runs: compiled on the GPU, or the Triton interpreter on the CPU (slow, but shows every access)</source>
        <translation>内核在哪里运行：在 GPU 上编译运行，或在 CPU 上用 Triton 解释器运行（慢，但能显示每一次访问）</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Defaults</source>
        <translation>恢复默认</translation>
    </message>
    <message>
        <source>Put every parameter back to the kernel&apos;s default</source>
        <translation>把所有参数恢复为内核的默认值</translation>
    </message>
    <message>
        <source>Block sizes and constants</source>
        <translation>块大小与常量</translation>
    </message>
    <message>
        <source>Launch options</source>
        <translation>启动选项</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题规模</translation>
    </message>
    <message>
        <source>No effect under the interpreter (it ignores launch options).</source>
        <translation>在解释器下无效（解释器忽略启动选项）。</translation>
    </message>
    <message>
        <source>integer, e.g. 4096 or 2**20</source>
        <translation>整数，如 4096 或 2**20</translation>
    </message>
    <message>
        <source>GPU unavailable: {reason}. Runs use the Triton interpreter on the CPU.</source>
        <translation>GPU 不可用：{reason}。运行将在 CPU 上使用 Triton 解释器。</translation>
    </message>
    <message>
        <source>no CUDA device</source>
        <translation>没有 CUDA 设备</translation>
    </message>
    <message>
        <source>allowed: {values}</source>
        <translation>允许值：{values}</translation>
    </message>
    <message>
        <source>range: {lo} … {hi}</source>
        <translation>范围：{lo} … {hi}</translation>
    </message>
    <message>
        <source>a power of two (arrows ×2 / ÷2)</source>
        <translation>2 的幂（箭头 ×2 / ÷2）</translation>
    </message>
    <message>
        <source>default: {value}</source>
        <translation>默认值：{value}</translation>
    </message>
</context>
<context>
    <name>RooflineView</name>
    <message>
        <source>No runs yet.</source>
        <translation>尚无运行。</translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP / byte)</source>
        <translation>算术强度（FLOP / 字节）</translation>
    </message>
    <message>
        <source>attained TFLOP/s</source>
        <translation>实测 TFLOP/s</translation>
    </message>
    <message>
        <source>roofs (measured peaks)</source>
        <translation>屋顶线（实测峰值）</translation>
    </message>
    <message>
        <source>runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>sweep points</source>
        <translation>扫描点</translation>
    </message>
    <message>
        <source>best of the sweep</source>
        <translation>本次扫描最佳</translation>
    </message>
    <message>
        <source>intensity {i:.3g} FLOP/byte, {t:.3g} TFLOP/s</source>
        <translation>强度 {i:.3g} FLOP/字节，{t:.3g} TFLOP/s</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>{pct:.0f}% of the {bound} roof ({cap:.3g} TFLOP/s)</source>
        <translation>达到{bound}屋顶的 {pct:.0f}%（{cap:.3g} TFLOP/s）</translation>
    </message>
    <message>
        <source>interpreter wall clock, not GPU speed</source>
        <translation>解释器墙钟时间，不代表 GPU 速度</translation>
    </message>
    <message>
        <source>click: load these values into the parameters</source>
        <translation>单击：把这组值载入参数面板</translation>
    </message>
    <message>
        <source>copy {gbps:,.0f} GB/s</source>
        <translation>拷贝 {gbps:,.0f} GB/s</translation>
    </message>
    <message>
        <source>matmul {tflops:,.0f} TFLOP/s</source>
        <translation>矩阵乘 {tflops:,.0f} TFLOP/s</translation>
    </message>
    <message>
        <source>No runs yet: run the kernel (or sweep it) to place it on the roofline.</source>
        <translation>尚无运行：运行（或扫描）内核，把它放到屋顶线图上。</translation>
    </message>
    <message>
        <source>1 run</source>
        <translation>1 次运行</translation>
    </message>
    <message>
        <source>{n} runs</source>
        <translation>{n} 次运行</translation>
    </message>
    <message>
        <source>1 sweep point</source>
        <translation>1 个扫描点</translation>
    </message>
    <message>
        <source>{n} sweep points</source>
        <translation>{n} 个扫描点</translation>
    </message>
    <message>
        <source>{n} not placed (failed, untimed, or no FLOP model)</source>
        <translation>{n} 个未放置（失败、未计时或没有 FLOP 模型）</translation>
    </message>
    <message>
        <source>roofs measured on this device: copy {gbps:,.0f} GB/s, matmul {tflops:,.0f} TFLOP/s, ridge at {ridge:.3g} FLOP/byte</source>
        <translation>本设备实测屋顶线：拷贝 {gbps:,.0f} GB/s，矩阵乘 {tflops:,.0f} TFLOP/s，拐点 {ridge:.3g} FLOP/字节</translation>
    </message>
    <message>
        <source>roofs unavailable: no measured peaks (the interpreter has no GPU; a GPU run measures the copy bandwidth and matmul rate) — points sit at interpreter wall clock, not GPU speed</source>
        <translation>无屋顶线：没有实测峰值（解释器没有 GPU；在 GPU 上运行会测量拷贝带宽和矩阵乘速率）— 各点按解释器墙钟时间放置，不代表 GPU 速度</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>CPU (Triton interpreter)</source>
        <translation>CPU（Triton 解释器）</translation>
    </message>
    <message>
        <source>Trace of {kernel} ({values}): grid {grid}, {n} programs recorded</source>
        <translation>{kernel} 的追踪（{values}）：网格 {grid}，记录了 {n} 个程序</translation>
    </message>
    <message>
        <source>Trace of {kernel} ({values}): grid {grid}, {n} program recorded</source>
        <translation>{kernel} 的追踪（{values}）：网格 {grid}，记录了 {n} 个程序</translation>
    </message>
    <message>
        <source>the parameters changed since: Trace again to update</source>
        <translation>参数已改动：再次追踪以更新</translation>
    </message>
    <message>
        <source>no program (never written)</source>
        <translation>无程序（从未写入）</translation>
    </message>
    <message>
        <source>several programs</source>
        <translation>多个程序</translation>
    </message>
    <message>
        <source>program {w} ({where})</source>
        <translation>程序 {w}（{where}）</translation>
    </message>
    <message>
        <source>{name}: give at least one value</source>
        <translation>{name}：至少给出一个值</translation>
    </message>
</context>
<context>
    <name>StatusStrip</name>
    <message>
        <source>worker: {state}</source>
        <translation>工作进程：{state}</translation>
    </message>
    <message>
        <source>starting</source>
        <extracomment>the worker&apos;s states (``app.client.STATES``) as the status bar says them: &quot;worker: ready&quot;</extracomment>
        <translation>启动中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>已崩溃</translation>
    </message>
    <message>
        <source>restarting</source>
        <translation>重启中</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>starting worker…</source>
        <extracomment>pixels between the end of a message and the first permanent label the object names of the status bar&apos;s permanent labels (``StatusStrip``)</extracomment>
        <translation>正在启动工作进程…</translation>
    </message>
    <message>
        <source>backend: —</source>
        <translation>后端：—</translation>
    </message>
    <message>
        <source>device: —</source>
        <translation>设备：—</translation>
    </message>
    <message>
        <source>worker: stopped</source>
        <translation>工作进程：已停止</translation>
    </message>
</context>
<context>
    <name>SweepDialog</name>
    <message>
        <source>Sweep {title}</source>
        <extracomment>more points than this make an interpreter sweep take minutes: the dialog says so</extracomment>
        <translation>扫描 {title}</translation>
    </message>
    <message>
        <source>Run every combination of one or two parameters; the others keep the values in the parameter panel. Points stream into the Sweep plot as they finish.</source>
        <translation>运行一个或两个参数的所有组合；其他参数沿用参数面板中的值。每个点完成后即显示在扫描图中。</translation>
    </message>
    <message>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Second parameter (heatmap)</source>
        <translation>第二个参数（热力图）</translation>
    </message>
    <message>
        <source>values, comma-separated, e.g. 64, 128, 256</source>
        <translation>取值，用逗号分隔，例如 64, 128, 256</translation>
    </message>
    <message>
        <source>parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>values</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>Sweep a second parameter too</source>
        <translation>同时扫描第二个参数</translation>
    </message>
    <message>
        <source>Run sweep</source>
        <translation>开始扫描</translation>
    </message>
    <message>
        <source>{name} is chosen twice: pick two different parameters</source>
        <translation>{name} 被选了两次：请选两个不同的参数</translation>
    </message>
    <message>
        <source>{n} points.</source>
        <translation>{n} 个点。</translation>
    </message>
    <message>
        <source>{n} point.</source>
        <translation>{n} 个点。</translation>
    </message>
    <message>
        <source>{bad} of them break a rule of the kernel and will show as failed ({why}).</source>
        <translation>其中 {bad} 个违反内核的规则，将显示为失败（{why}）。</translation>
    </message>
    <message>
        <source>That is many points: under the interpreter this can take minutes (Cancel with Esc keeps the points done so far).</source>
        <translation>点很多：在解释器下可能要几分钟（按 Esc 取消会保留已完成的点）。</translation>
    </message>
</context>
<context>
    <name>SweepHeatmap</name>
    <message>
        <source>No sweep yet.</source>
        <translation>尚未扫描。</translation>
    </message>
    <message>
        <source>best over the other axes</source>
        <translation>其他轴上的最佳值</translation>
    </message>
    <message>
        <source>a slice at…</source>
        <translation>某个切片…</translation>
    </message>
    <message>
        <source>x:</source>
        <translation>x 轴：</translation>
    </message>
    <message>
        <source>y:</source>
        <translation>y 轴：</translation>
    </message>
    <message>
        <source>cells:</source>
        <translation>格子：</translation>
    </message>
    <message>
        <source>no point here (not run yet, or removed by a constraint)</source>
        <translation>此处没有点（尚未运行，或被约束移除）</translation>
    </message>
    <message>
        <source>the best over the others:</source>
        <translation>其他轴上的最佳：</translation>
    </message>
    <message>
        <source>slice:</source>
        <translation>切片：</translation>
    </message>
    <message>
        <source>no figure — {why}</source>
        <translation>无数值 — {why}</translation>
    </message>
    <message>
        <source>median {m:.4g} ms [p20 {lo:.4g}, p80 {hi:.4g}], {n} reps</source>
        <translation>中位数 {m:.4g} ms [p20 {lo:.4g}, p80 {hi:.4g}]，{n} 次重复</translation>
    </message>
    <message>
        <source>★ best cell</source>
        <translation>★ 最佳格子</translation>
    </message>
    <message>
        <source>click: load these values into the parameters</source>
        <translation>单击：把这组值载入参数面板</translation>
    </message>
    <message>
        <source>ms (interpreter wall clock)</source>
        <translation>ms（解释器墙钟时间）</translation>
    </message>
    <message>
        <source>{unit} (bright: better)</source>
        <translation>{unit}（越亮越好）</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>pruned</source>
        <translation>已剪枝</translation>
    </message>
    <message>
        <source>no time</source>
        <translation>无时间</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>, each cell the best over {names}</source>
        <translation>，每格取 {names} 上的最佳值</translation>
    </message>
    <message>
        <source>, slice at {values}</source>
        <translation>，切片位于 {values}</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>{where}{how} · {unit}</source>
        <translation>{where}{how} · 指标 {unit}</translation>
    </message>
    <message>
        <source>best {value} at {values}</source>
        <translation>最佳 {value}，位于 {values}</translation>
    </message>
    <message>
        <source>interpreter wall clock, not GPU speed</source>
        <translation>解释器墙钟时间，不代表 GPU 速度</translation>
    </message>
</context>
<context>
    <name>SweepTable</name>
    <message>
        <source>Save @triton.autotune…</source>
        <extracomment>export name -&gt; (button text, file name, file filter)</extracomment>
        <translation>保存 @triton.autotune…</translation>
    </message>
    <message>
        <source>Save triton_op module…</source>
        <translation>保存 triton_op 模块…</translation>
    </message>
    <message>
        <source>No sweep yet.</source>
        <translation>尚未扫描。</translation>
    </message>
    <message>
        <source>saved {what} to {path}</source>
        <translation>已把 {what} 保存到 {path}</translation>
    </message>
    <message>
        <source>Write the sweep&apos;s {kind} export to a file</source>
        <translation>把扫描的 {kind} 导出写入文件</translation>
    </message>
    <message>
        <source>A tune sweep with a passing point makes this export</source>
        <translation>有通过点的调优扫描才会生成此导出</translation>
    </message>
    <message>
        <source>{n} points</source>
        <translation>{n} 个点</translation>
    </message>
    <message>
        <source>{n} pruned before compiling</source>
        <translation>{n} 个在编译前被剪枝</translation>
    </message>
    <message>
        <source>{n} failed</source>
        <translation>{n} 个失败</translation>
    </message>
    <message>
        <source>{n} removed by constraints</source>
        <translation>{n} 个被约束移除</translation>
    </message>
    <message>
        <source>{rate:.0f} configs/minute</source>
        <translation>每分钟 {rate:.0f} 个配置</translation>
    </message>
    <message>
        <source>interpreter wall clock, not GPU speed</source>
        <translation>解释器墙钟时间，不代表 GPU 速度</translation>
    </message>
    <message>
        <source>running… (ranked by first measurements until the sweep ends)</source>
        <translation>运行中…（扫描结束前按首次测量排序）</translation>
    </message>
    <message>
        <source>Save export</source>
        <translation>保存导出</translation>
    </message>
    <message>
        <source>could not save: {why}</source>
        <translation>无法保存：{why}</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>group</source>
        <translation>组</translation>
    </message>
    <message>
        <source>median ms</source>
        <translation>中位数 ms</translation>
    </message>
    <message>
        <source>reps</source>
        <translation>重复次数</translation>
    </message>
    <message>
        <source>× best</source>
        <translation>× 最佳</translation>
    </message>
    <message>
        <source>regs</source>
        <translation>寄存器</translation>
    </message>
    <message>
        <source>spills</source>
        <translation>溢出</translation>
    </message>
    <message>
        <source>shared B</source>
        <translation>共享内存 B</translation>
    </message>
    <message>
        <source>occupancy %</source>
        <translation>占用率 %</translation>
    </message>
    <message>
        <source>compile s</source>
        <translation>编译 s</translation>
    </message>
    <message>
        <source>est. shared B</source>
        <translation>估计共享内存 B</translation>
    </message>
    <message>
        <source>limited by</source>
        <translation>受限于</translation>
    </message>
    <message>
        <source>note</source>
        <translation>备注</translation>
    </message>
</context>
<context>
    <name>SweepTabs</name>
    <message>
        <source>Heatmap</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Sweep three or more parameters (Sweep…, Add a parameter) to see any two of them here.</source>
        <translation>扫描三个或更多参数（扫描…，添加参数），即可在此查看其中任意两个。</translation>
    </message>
    <message>
        <source>Ranking</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>Run a sweep to rank its points.</source>
        <translation>运行一次扫描，为各点排名。</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>屋顶线</translation>
    </message>
    <message>
        <source>Run the kernel to place it on the roofline.</source>
        <translation>运行内核，把它放到屋顶线图上。</translation>
    </message>
    <message>
        <source>This sweep has {n} parameters: see the Heatmap (any two of them) and Ranking tabs.</source>
        <translation>本次扫描有 {n} 个参数：请看“热力图”（任意两个参数）和“排名”标签页。</translation>
    </message>
</context>
<context>
    <name>SweepView</name>
    <message>
        <source>wrong answer: {reason}</source>
        <translation>结果错误：{reason}</translation>
    </message>
    <message>
        <source>check failed</source>
        <translation>校验失败</translation>
    </message>
    <message>
        <source>not timed</source>
        <translation>未计时</translation>
    </message>
    <message>
        <source>No sweep yet.</source>
        <translation>尚未扫描。</translation>
    </message>
    <message>
        <source>Run a sweep to see throughput against the swept parameters.</source>
        <translation>运行一次参数扫描，查看吞吐量随参数的变化。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>not run yet</source>
        <translation>尚未运行</translation>
    </message>
    <message>
        <source>FAILED — {why}</source>
        <translation>失败 — {why}</translation>
    </message>
    <message>
        <source>median {median} ms [p20 {p20}, p80 {p80}]</source>
        <translation>中位数 {median} ms [p20 {p20}, p80 {p80}]</translation>
    </message>
    <message>
        <source>★ best of the sweep</source>
        <translation>★ 本次扫描最佳</translation>
    </message>
    <message>
        <source> (log2 axis)</source>
        <translation>（log2 坐标）</translation>
    </message>
    <message>
        <source>ms (interpreter wall clock)</source>
        <translation>ms（解释器墙钟时间）</translation>
    </message>
    <message>
        <source>failed (hover for why)</source>
        <translation>失败（悬停查看原因）</translation>
    </message>
    <message>
        <source>best {value} at {where}</source>
        <translation>最佳 {value}，位于 {where}</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Sweep of {names}: {done}/{total} points</source>
        <translation>扫描 {names}：{done}/{total} 个点</translation>
    </message>
    <message>
        <source>, {n} failed</source>
        <translation>，{n} 个失败</translation>
    </message>
    <message>
        <source>best {value} {unit} at {where}</source>
        <translation>最佳 {value} {unit}，位于 {where}</translation>
    </message>
    <message>
        <source>interpreter wall clock, not GPU speed</source>
        <translation>解释器墙钟时间，不代表 GPU 速度</translation>
    </message>
    <message>
        <source>Export sweep</source>
        <translation>导出扫描</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG vector image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
</context>
<context>
    <name>ThroughputView</name>
    <message>
        <source>Interpreter wall-clock time — not GPU speed</source>
        <translation>解释器墙钟时间 — 不代表 GPU 速度</translation>
    </message>
    <message>
        <source>The Triton interpreter runs each program in Python on the CPU; its time says nothing about how fast the kernel runs on a GPU.</source>
        <translation>Triton 解释器在 CPU 上用 Python 运行每个程序；它的耗时不能说明内核在 GPU 上有多快。</translation>
    </message>
    <message>
        <source>run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>No runs yet.</source>
        <translation>尚未运行。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save the plot as PNG or SVG</source>
        <translation>把图保存为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>peak {peak} {unit}</source>
        <translation>峰值 {peak} {unit}</translation>
    </message>
    <message>
        <source>Run {n}</source>
        <translation>运行 {n}</translation>
    </message>
    <message>
        <source>interpreter wall clock: {median} ms [p20 {p20}, p80 {p80}] — not GPU speed</source>
        <translation>解释器墙钟时间：{median} ms [p20 {p20}, p80 {p80}] — 不代表 GPU 速度</translation>
    </message>
    <message>
        <source>torch on CPU: {ms} ms</source>
        <translation>CPU 上的 torch：{ms} ms</translation>
    </message>
    <message>
        <source> ({pct:.0f}% of peak)</source>
        <translation>（峰值的 {pct:.0f}%）</translation>
    </message>
    <message>
        <source>median {median} ms [p20 {p20}, p80 {p80}]</source>
        <translation>中位数 {median} ms [p20 {p20}, p80 {p80}]</translation>
    </message>
    <message>
        <source>; Triton/torch speed {ratio:.2f}×</source>
        <translation>；Triton/torch 速度比 {ratio:.2f}×</translation>
    </message>
    <message>
        <source>check: PASS</source>
        <translation>校验：通过</translation>
    </message>
    <message>
        <source>check: FAIL — {reason}</source>
        <translation>校验：失败 — {reason}</translation>
    </message>
    <message>
        <source>error: {message}</source>
        <translation>错误：{message}</translation>
    </message>
    <message>
        <source>Interpreter runs (CPU): milliseconds, lower is better</source>
        <translation>解释器运行（CPU）：毫秒，越低越好</translation>
    </message>
    <message>
        <source>ms per run (CPU), lower is better</source>
        <translation>每次运行的毫秒数（CPU），越低越好</translation>
    </message>
    <message>
        <source>Throughput per run ({unit}, higher is better)</source>
        <translation>每次运行的吞吐量（{unit}，越高越好）</translation>
    </message>
    <message>
        <source>{unit} per run, higher is better</source>
        <translation>每次运行的 {unit}，越高越好</translation>
    </message>
    <message>
        <source>torch on CPU (ms)</source>
        <translation>CPU 上的 torch (ms)</translation>
    </message>
    <message>
        <source>Triton interpreter (ms)</source>
        <translation>Triton 解释器 (ms)</translation>
    </message>
    <message>
        <source>{n} runs, none timed.</source>
        <translation>{n} 次运行，均未计时。</translation>
    </message>
    <message>
        <source>Run {n}: {ms} ms (interpreter wall clock)</source>
        <translation>运行 {n}：{ms} ms（解释器墙钟时间）</translation>
    </message>
    <message>
        <source> = {pct:.0f}% of peak</source>
        <translation> = 峰值的 {pct:.0f}%</translation>
    </message>
    <message>
        <source> · {n} run(s) without timing</source>
        <translation> · {n} 次运行未计时</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG vector image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>SM {sm}/{top} MHz</source>
        <translation>SM 时钟 {sm}/{top} MHz</translation>
    </message>
    <message>
        <source>clock below its top</source>
        <translation>时钟低于最高频率</translation>
    </message>
    <message>
        <source>clocks unknown</source>
        <translation>时钟未知</translation>
    </message>
    <message>
        <source>clocks: </source>
        <translation>时钟：</translation>
    </message>
    <message>
        <source>data sheet {value}</source>
        <translation>规格表 {value}</translation>
    </message>
    <message>
        <source>memory {mem} MHz</source>
        <translation>显存 {mem} MHz</translation>
    </message>
    <message>
        <source>outlier: outside the p20–p80 spread of runs {runs} (same configuration)</source>
        <translation>离群点：超出同一配置第 {runs} 次运行的 p20–p80 范围</translation>
    </message>
    <message>
        <source>peak {peak} {unit} ({source})</source>
        <translation>峰值 {peak} {unit}（{source}）</translation>
    </message>
    <message>
        <source>throttled: {why}</source>
        <translation>降频：{why}</translation>
    </message>
    <message>
        <source>warmed {ms} ms</source>
        <translation>预热 {ms} ms</translation>
    </message>
</context>
<context>
    <name>TimelineTab</name>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>No timeline: this machine has no usable GPU ({why}). The schedule is read on the GPU itself (each program&apos;s SM and clock), so choose the GPU backend on a machine with CUDA and press Trace.</source>
        <translation>没有时间线：本机没有可用的 GPU（{why}）。调度信息要在 GPU 上读取（每个程序所在的 SM 和时钟），请在有 CUDA 的机器上选择 GPU 后端并按“追踪”。</translation>
    </message>
    <message>
        <source>no CUDA device</source>
        <translation>没有 CUDA 设备</translation>
    </message>
    <message>
        <source>This trace ran under the interpreter, which has no SMs or clocks: choose the GPU backend and press Trace to see when and where each program ran.</source>
        <translation>这次追踪在解释器下运行，解释器没有 SM 也没有时钟：选择 GPU 后端并按“追踪”，即可看到每个程序何时在何处运行。</translation>
    </message>
    <message>
        <source>No timeline yet: choose the GPU backend and press Trace (Ctrl+T) to see when and on which SM each program ran.</source>
        <translation>还没有时间线：选择 GPU 后端并按“追踪”（Ctrl+T），即可看到每个程序何时在哪个 SM 上运行。</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>SM</source>
        <extracomment>wave colours, cycled (neighbouring waves differ)</extracomment>
        <translation>SM 编号</translation>
    </message>
    <message>
        <source>time since the first program started (µs)</source>
        <translation>自第一个程序开始的时间（µs）</translation>
    </message>
    <message>
        <source>No GPU timeline yet: trace on the GPU with the timeline on.</source>
        <translation>尚无 GPU 时间线：在 GPU 上打开时间线进行追踪。</translation>
    </message>
    <message>
        <source>the recording build, slowed by its recording</source>
        <translation>记录版本，因记录而变慢</translation>
    </message>
    <message>
        <source>a light timeline build</source>
        <translation>轻量时间线版本</translation>
    </message>
    <message>
        <source>{n} programs on {used} of {sms} SMs in {span:.1f} µs ({build})</source>
        <translation>{n} 个程序运行在 {sms} 个 SM 中的 {used} 个上，用时 {span:.1f} 微秒（{build}）</translation>
    </message>
    <message>
        <source>waves: measured {measured:.2f} (at most {resident} programs at once) · formula {formula:.2f} ({sms} SMs × {per_sm} per SM)</source>
        <translation>波次：实测 {measured:.2f}（同时最多 {resident} 个程序）· 公式 {formula:.2f}（{sms} 个 SM × 每 SM {per_sm} 个）</translation>
    </message>
    <message>
        <source>program {pid} on SM {sm}: {start:.1f}–{end:.1f} µs</source>
        <translation>程序 {pid} 在 SM {sm} 上：{start:.1f}–{end:.1f} µs</translation>
    </message>
</context>
<context>
    <name>TuneSweepDialog</name>
    <message>
        <source>Run every combination of the parameters below; the others keep the values in the parameter panel. One or two parameters fill the Sweep plot; more, or a constraint, make a tune sweep: ranked with their spread (Ranking tab), shown two axes at a time (Heatmap tab), with @triton.autotune and triton_op exports.</source>
        <translation>运行下列参数的所有组合；其他参数沿用参数面板中的值。一两个参数显示在扫描图中；更多参数或加了约束则是调优扫描：按离散程度排名（“排名”标签页），每次显示两个轴（“热力图”标签页），并可导出 @triton.autotune 和 triton_op。</translation>
    </message>
    <message>
        <source>More parameters (a tune sweep)</source>
        <translation>更多参数（调优扫描）</translation>
    </message>
    <message>
        <source>Add a parameter</source>
        <translation>添加参数</translation>
    </message>
    <message>
        <source>Constraints (one per line; points where one is false are not run)</source>
        <translation>约束（每行一个；任一约束不成立的点不运行）</translation>
    </message>
    <message>
        <source>e.g. BLOCK_M * BLOCK_N &lt;= 16384</source>
        <translation>例如 BLOCK_M * BLOCK_N &lt;= 16384</translation>
    </message>
    <message>
        <source>Tune: re-measure the fastest, rank with their spread, make exports</source>
        <translation>调优：重新测量最快的几个点，按离散程度排名，生成导出</translation>
    </message>
    <message>
        <source>Run on:</source>
        <translation>运行于：</translation>
    </message>
    <message>
        <source>the worker&apos;s device, one point at a time</source>
        <translation>工作进程的设备，一次一个点</translation>
    </message>
    <message>
        <source>every GPU of the worker&apos;s host (starts Ray there)</source>
        <translation>工作进程所在主机的每块 GPU（在那里启动 Ray）</translation>
    </message>
    <message>
        <source>the running Ray cluster</source>
        <translation>正在运行的 Ray 集群</translation>
    </message>
    <message>
        <source>Ray runs the points on one warm worker per GPU and re-measures the fastest on one GPU; it needs pip install -e &quot;.[cluster]&quot; where the worker runs.</source>
        <translation>Ray 在每块 GPU 上各用一个预热的工作进程运行各点，并在同一块 GPU 上重新测量最快的几个；工作进程所在的机器需要 pip install -e &quot;.[cluster]&quot;。</translation>
    </message>
    <message>
        <source>values, comma-separated</source>
        <translation>取值，用逗号分隔</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>{name} has no effect under the interpreter (every value runs the same program): sweep it on a GPU.</source>
        <translation>{name} 在解释器下不起作用（每个取值运行的都是同一个程序）：请在 GPU 上扫描它。</translation>
    </message>
    <message>
        <source>{name} is chosen twice: pick different parameters</source>
        <translation>{name} 被选了两次：请选不同的参数</translation>
    </message>
    <message>
        <source>{name} has no effect under the interpreter: every value would time the same program. Sweep it on a GPU, or give it one value.</source>
        <translation>{name} 在解释器下无效：每个值计时的都是同一个程序。请在 GPU 上扫描它，或只给一个值。</translation>
    </message>
    <message>
        <source>{n} points.</source>
        <translation>{n} 个点。</translation>
    </message>
    <message>
        <source>{n} point.</source>
        <translation>{n} 个点。</translation>
    </message>
    <message>
        <source>{n} combinations removed by the constraints.</source>
        <translation>{n} 个组合被约束移除。</translation>
    </message>
    <message>
        <source>{bad} of them break a rule of the kernel and will show as failed ({why}).</source>
        <translation>其中 {bad} 个违反内核的规则，将显示为失败（{why}）。</translation>
    </message>
    <message>
        <source>A tune sweep: the fastest three are re-measured, interleaved, and ranked.</source>
        <translation>调优扫描：最快的三个点会交替重新测量并排名。</translation>
    </message>
    <message>
        <source>That is many points: under the interpreter this can take minutes (Cancel with Esc keeps the points done so far).</source>
        <translation>点很多：在解释器下可能要几分钟（按 Esc 取消会保留已完成的点）。</translation>
    </message>
</context>
<context>
    <name>theme</name>
    <message>
        <source>Export plot as PNG / SVG…</source>
        <translation>把图导出为 PNG / SVG…</translation>
    </message>
</context>
<context>
    <name>ThreadsView</name>
    <message>
        <source>The layouts could not be read: {why}</source>
        <translation>无法读取布局：{why}</translation>
    </message>
    <message>
        <source>No layout yet: choose a kernel. Changing num_warps, a block size or the dtype redraws it.</source>
        <translation>还没有布局：请选择一个内核。更改 num_warps、块大小或 dtype 会重新绘制。</translation>
    </message>
    <message>
        <source>block {shape} · {w} warps × 32 lanes</source>
        <translation>块 {shape} · {w} 个 warp × 32 条通道</translation>
    </message>
    <message>
        <source>A shared-memory layout whose offsets could not be read: nothing to draw.</source>
        <translation>无法读取这个共享内存布局的偏移：没有可画的内容。</translation>
    </message>
    <message>
        <source>Point at an element: its offset in shared memory and its bank.</source>
        <translation>指向一个元素：显示它在共享内存中的偏移及所在的 bank。</translation>
    </message>
    <message>
        <source>faded: {n} elements masked off in program {p}</source>
        <translation>淡色：程序 {p} 中被掩码屏蔽的 {n} 个元素</translation>
    </message>
    <message>
        <source>Point at an element: its warp, lane, register and its instruction&apos;s sectors.</source>
        <translation>指向一个元素：显示它的 warp、通道、寄存器以及其指令的扇区数。</translation>
    </message>
    <message>
        <source>shared memory: {wf} wavefronts over {n} instructions (ideal {ideal}) · {c} bank conflicts</source>
        <translation>共享内存：{n} 条指令共 {wf} 个波前（理想 {ideal}）· {c} 次 bank 冲突</translation>
    </message>
    <message>
        <source>coalescing: not measured (no trace of this access)</source>
        <translation>合并访问：未测量（此访问没有跟踪记录）</translation>
    </message>
    <message>
        <source>warp {w} ({n})</source>
        <translation>warp {w}（{n} 个元素）</translation>
    </message>
    <message>
        <source>cells: lane (and registers); odd lanes lighter</source>
        <translation>格子：通道（及寄存器）；奇数通道颜色较浅</translation>
    </message>
    <message>
        <source>banks {lo}–{hi} ({n})</source>
        <translation>bank {lo}–{hi}（{n} 个元素）</translation>
    </message>
    <message>
        <source>cells: bank and offset; a row&apos;s colours in another order = the swizzle</source>
        <translation>格子：bank 与偏移；一行的颜色顺序被打乱 = 交织（swizzle）</translation>
    </message>
    <message>
        <source>Access:</source>
        <translation>访问：</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>程序：</translation>
    </message>
    <message>
        <source>The program whose addresses give the sectors per instruction</source>
        <translation>用其地址计算每条指令扇区数的程序</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>The GPU architecture the kernel is compiled for (on this machine, no GPU needed): its layouts can differ</source>
        <translation>为之编译内核的 GPU 架构（在本机编译，无需 GPU）：不同架构的布局可能不同</translation>
    </message>
    <message>
        <source>Whole tile</source>
        <translation>整个块</translation>
    </message>
    <message>
        <source>Zoom out to the whole tile (wheel zooms, drag pans)</source>
        <translation>缩小到整个块（滚轮缩放，拖动平移）</translation>
    </message>
    <message>
        <source>element {name} → shared offset {o} (byte {b}), bank {k}, 16-byte group {g} of its 128-byte row</source>
        <translation>元素 {name} → 共享内存偏移 {o}（第 {b} 字节），bank {k}，所在 128 字节行中的第 {g} 个 16 字节组</translation>
    </message>
    <message>
        <source>element {name} → warp {w}, lane {l}, register {r} (thread {t})</source>
        <translation>元素 {name} → warp {w}，通道 {l}，寄存器 {r}（线程 {t}）</translation>
    </message>
    <message>
        <source> · held by {n} threads (broadcast: {more})</source>
        <translation> · 由 {n} 个线程持有（广播：{more}）</translation>
    </message>
    <message>
        <source> · masked off in program {p}</source>
        <translation> · 在程序 {p} 中被掩码屏蔽</translation>
    </message>
    <message>
        <source> · byte {b} of {t}, sector {s} (bytes {lo}–{hi} of it)</source>
        <translation> · {t} 的第 {b} 字节，扇区 {s}（其中第 {lo}–{hi} 字节）</translation>
    </message>
    <message>
        <source> · instruction {i} of program {p}: {s} sectors (ideal {ideal})</source>
        <translation> · 程序 {p} 的第 {i} 条指令：{s} 个扇区（理想 {ideal}）</translation>
    </message>
    <message>
        <source>  (of {parent})</source>
        <translation>（源自 {parent}）</translation>
    </message>
    <message>
        <source>{dtype} in shared memory: no thread holds it; each cell is coloured by its 16-byte bank group and labelled with its bank</source>
        <translation>{dtype} 位于共享内存：没有线程持有它；每个格子按其 16 字节 bank 组着色，并标出所在的 bank</translation>
    </message>
    <message>
        <source>{dtype}, in registers (no memory instruction)</source>
        <translation>{dtype}，位于寄存器中（无内存指令）</translation>
    </message>
    <message>
        <source>scalar: one {dtype} ({bits}-bit) per thread per instruction</source>
        <translation>标量：每个线程每条指令一个 {dtype}（{bits} 位）</translation>
    </message>
    <message>
        <source>{bits}-bit vectors: {n} × {dtype} per thread</source>
        <translation>{bits} 位向量：每个线程 {n} × {dtype}</translation>
    </message>
    <message>
        <source>in program {p}</source>
        <translation>（程序 {p}）</translation>
    </message>
    <message>
        <source>over {n} programs</source>
        <translation>（共 {n} 个程序）</translation>
    </message>
    <message>
        <source>sectors/request {per:.1f} (ideal {ideal:.1f}) · {req} requests, {sec} sectors {where} · {waste} bytes wasted ({eff:.0%} of the bytes moved were used)</source>
        <translation>每请求扇区数 {per:.1f}（理想 {ideal:.1f}）· {req} 个请求、{sec} 个扇区{where} · 浪费 {waste} 字节（搬运的字节中 {eff:.0%} 被使用）</translation>
    </message>
    <message>
        <source>{what} · line {line}</source>
        <translation>{what} · 第 {line} 行</translation>
    </message>
</context>
<context>
    <name>Kernels</name>
    <message>
        <source>Fused attention forward (FlashAttention)</source>
        <translation>融合注意力前向（FlashAttention）</translation>
    </message>
    <message>
        <source>out = softmax(q k^T / sqrt(d)) v with online softmax over K/V blocks; optional causal mask</source>
        <translation>out = softmax(q k^T / sqrt(d)) v，按 K/V 块做在线 softmax；可选因果掩码</translation>
    </message>
    <message>
        <source>Vector add</source>
        <translation>向量加法</translation>
    </message>
    <message>
        <source>out = x + y, one block of BLOCK_SIZE elements per program</source>
        <translation>out = x + y，每个程序处理一块 BLOCK_SIZE 个元素</translation>
    </message>
    <message>
        <source>Vector mul</source>
        <translation>向量乘法</translation>
    </message>
    <message>
        <source>out = x * y, the tutorials&apos; first exercise</source>
        <translation>out = x * y，教程的第一个练习</translation>
    </message>
    <message>
        <source>GELU (erf or tanh approximation)</source>
        <translation>GELU（erf 或 tanh 近似）</translation>
    </message>
    <message>
        <source>out = gelu(x), elementwise; APPROX_TANH picks the tanh form over the exact erf form</source>
        <translation>out = gelu(x)，逐元素；APPROX_TANH 选择 tanh 形式而非精确的 erf 形式</translation>
    </message>
    <message>
        <source>LayerNorm forward</source>
        <translation>LayerNorm 前向</translation>
    </message>
    <message>
        <source>y = (x - mean) / sqrt(var + eps) * weight + bias over each row; also writes mean, rstd</source>
        <translation>对每一行 y = (x - mean) / sqrt(var + eps) * weight + bias；同时写出 mean、rstd</translation>
    </message>
    <message>
        <source>Matrix multiplication (tiled, grouped order)</source>
        <translation>矩阵乘法（分块，分组顺序）</translation>
    </message>
    <message>
        <source>C = A @ B: one BLOCK_M x BLOCK_N tile of C per program, a K loop, fp32 accumulator</source>
        <translation>C = A @ B：每个程序负责 C 的一个 BLOCK_M x BLOCK_N 块，一个 K 循环，fp32 累加器</translation>
    </message>
    <message>
        <source>Softmax (fused, one row per program)</source>
        <translation>Softmax（融合，每个程序一行）</translation>
    </message>
    <message>
        <source>y = softmax(x) over each row of an (M, N) matrix; a whole row per program</source>
        <translation>对 (M, N) 矩阵的每一行 y = softmax(x)；每个程序一整行</translation>
    </message>
    <message>
        <source>Softmax (looped, online max and sum)</source>
        <translation>Softmax（循环，在线求最大值与和）</translation>
    </message>
    <message>
        <source>y = softmax(x) over rows of any width, in chunks of BLOCK_SIZE with an online max/sum</source>
        <translation>对任意宽度的行 y = softmax(x)，按 BLOCK_SIZE 分块，在线求最大值/和</translation>
    </message>
</context>
<context>
    <name>AdviceView</name>
    <message>
        <source>high</source>
        <translation>高</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>info</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>已测量</translation>
    </message>
    <message>
        <source>checked</source>
        <translation>已检查</translation>
    </message>
    <message>
        <source>not tried</source>
        <translation>未尝试</translation>
    </message>
    <message>
        <source>suggestion</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Why is it slow?</source>
        <translation>为什么慢？</translation>
    </message>
    <message>
        <source>Try the launch proposals</source>
        <translation>尝试启动参数建议</translation>
    </message>
    <message>
        <source>On a GPU each launch change is timed against the current values; on the CPU each is compiled for the target and checked</source>
        <translation>在 GPU 上，每个启动参数修改都与当前值对比计时；在 CPU 上，每个修改为目标架构编译并检查</translation>
    </message>
    <message>
        <source>Ask for the likely causes of slowness, with their evidence.</source>
        <translation>查询可能导致变慢的原因及其证据。</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Advice</source>
        <translation>建议状态</translation>
    </message>
    <message>
        <source>No findings: {why}</source>
        <translation>没有发现：{why}</translation>
    </message>
    <message>
        <source>{kernel} on {target}: {n} finding(s), {h} high</source>
        <translation>{kernel}（{target}）：{n} 项发现，{h} 项高</translation>
    </message>
    <message>
        <source>{kernel} on {target}: nothing Tilescope can see holds it back</source>
        <translation>{kernel}（{target}）：Tilescope 未发现拖慢它的因素</translation>
    </message>
    <message>
        <source>Not checked here: {what}</source>
        <translation>此处未检查：{what}</translation>
    </message>
    <message>
        <source>measured {gain:.2f}x</source>
        <translation>已测量 {gain:.2f}x</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>launch change</source>
        <translation>启动参数修改</translation>
    </message>
    <message>
        <source>suggestion only</source>
        <translation>仅为建议</translation>
    </message>
    <message>
        <source>Proposal</source>
        <translation>建议的修改</translation>
    </message>
    <message>
        <source>Measured: {change}: {a:.4f} ms -&gt; {b:.4f} ms ({g:.2f}x)</source>
        <translation>已测量：{change}：{a:.4f} ms -> {b:.4f} ms（{g:.2f}x）</translation>
    </message>
    <message>
        <source>the finding is gone</source>
        <translation>该发现已消失</translation>
    </message>
    <message>
        <source>Checked by compiling {change} (not timed): {after}</source>
        <translation>已通过编译 {change} 检查（未计时）：{after}</translation>
    </message>
    <message>
        <source>the kernel&apos;s own fixed variant</source>
        <translation>内核自带的修正版本</translation>
    </message>
</context>
<context>
    <name>Engine</name>
    <message>
        <source>this torch ({version}) is a CPU-only build</source>
        <translation>此 torch（{version}）是仅支持 CPU 的版本</translation>
    </message>
    <message>
        <source>torch sees no CUDA device (driver missing or no GPU visible)</source>
        <translation>torch 看不到 CUDA 设备（缺少驱动或没有可见的 GPU）</translation>
    </message>
    <message>
        <source>CUDA is installed but unusable: {error}</source>
        <translation>已安装 CUDA，但无法使用：{error}</translation>
    </message>
    <message>
        <source>torch is not importable ({error})</source>
        <translation>无法导入 torch（{error}）</translation>
    </message>
    <message>
        <source>roofline position (needs GPU timing against the measured roofs)</source>
        <translation>屋顶线位置（需要 GPU 计时与实测峰值对比）</translation>
    </message>
    <message>
        <source>measured tail (needs the GPU timeline; the tail here is the formula&apos;s)</source>
        <translation>实测尾部（需要 GPU 时间线；这里的尾部是公式估计）</translation>
    </message>
    <message>
        <source>measured gain of each launch proposal (needs GPU timing; here each is compiled and checked)</source>
        <translation>每个启动建议的实测收益（需要 GPU 计时；这里每个都只编译并检查）</translation>
    </message>
    <message>
        <source>compiled for {target}; not timed (no GPU): {n} candidate(s) checked</source>
        <translation>已为 {target} 编译；未计时（没有 GPU）：检查了 {n} 个候选</translation>
    </message>
    <message>
        <source>tune sweep on {backend}: {n} configs, the fastest re-measured interleaved</source>
        <translation>在 {backend} 上调优扫描：{n} 个配置，最快的几个交错重测</translation>
    </message>
    <message>
        <source>compiled for {target}; not timed (no GPU): {n} candidate(s) checked; {rest}</source>
        <translation>已为 {target} 编译；未计时（没有 GPU）：检查了 {n} 个候选；{rest}</translation>
    </message>
    <message>
        <source>no candidate compiled: {why}</source>
        <translation>没有候选编译成功：{why}</translation>
    </message>
    <message>
        <source>the sweep failed: {why}</source>
        <translation>扫描失败：{why}</translation>
    </message>
    <message>
        <source>the current values were not timed</source>
        <translation>当前参数值未计时</translation>
    </message>
    <message>
        <source>no candidate passed its check</source>
        <translation>没有候选通过检查</translation>
    </message>
</context>
<context>
    <name>Advisor</name>
    <message>
        <source>{bytes} bytes per thread spilled to local memory</source>
        <translation>每个线程有 {bytes} 字节溢出到本地内存</translation>
    </message>
    <message>
        <source>ptxas ran out of registers ({registers} per thread) and keeps values in local memory: {n} spill loads and stores</source>
        <translation>ptxas 寄存器不足（每线程 {registers} 个），把值放在本地内存：{n} 条溢出加载与存储</translation>
    </message>
    <message>
        <source>, {n} of them for line {line}</source>
        <translation>，其中 {n} 条属于第 {line} 行</translation>
    </message>
    <message>
        <source>spread the values over more threads (num_warps {old} -&gt; {new})</source>
        <translation>把值分给更多线程（num_warps {old} -&gt; {new}）</translation>
    </message>
    <message>
        <source>hold fewer values per thread: {changes}</source>
        <translation>让每个线程持有更少的值：{changes}</translation>
    </message>
    <message>
        <source>{limiter} allow no program on an SM</source>
        <translation>{limiter}使一个 SM 上一个程序也放不下</translation>
    </message>
    <message>
        <source>{limiter} hold the SM to 1 program ({pct}% of its warps)</source>
        <translation>{limiter}把每个 SM 限制为 1 个程序（其 warp 的 {pct}%）</translation>
    </message>
    <message>
        <source>{limiter} hold the SM to {n} programs ({pct}% of its warps)</source>
        <translation>{limiter}把每个 SM 限制为 {n} 个程序（其 warp 的 {pct}%）</translation>
    </message>
    <message>
        <source>occupancy is limited by {limiter}: </source>
        <translation>占用率受{limiter}限制：</translation>
    </message>
    <message>
        <source>{bytes} bytes of shared memory per program or less would fit {n}</source>
        <translation>每个程序的共享内存不超过 {bytes} 字节即可放下 {n} 个</translation>
    </message>
    <message>
        <source>{registers} registers per thread or fewer would fit {n}</source>
        <translation>每线程寄存器不超过 {registers} 个即可放下 {n} 个</translation>
    </message>
    <message>
        <source>no register count would</source>
        <translation>任何寄存器数都不行</translation>
    </message>
    <message>
        <source>one pipeline stage fewer (num_stages {old} -&gt; {new}) frees a stage of shared memory per program</source>
        <translation>少一级流水（num_stages {old} -&gt; {new}），每个程序省下一级的共享内存</translation>
    </message>
    <message>
        <source>more threads share the values (num_warps {old} -&gt; {new}): fewer registers each</source>
        <translation>更多线程分担这些值（num_warps {old} -&gt; {new}）：每个线程需要的寄存器更少</translation>
    </message>
    <message>
        <source>a smaller block ({param} {old} -&gt; {new}) needs fewer registers</source>
        <translation>更小的块（{param} {old} -&gt; {new}）需要更少的寄存器</translation>
    </message>
    <message>
        <source>1 warp for a {block} block: {n} elements per thread</source>
        <translation>{block} 的块只有 1 个 warp：每线程 {n} 个元素</translation>
    </message>
    <message>
        <source>{warps} warps for a {block} block: {n} elements per thread</source>
        <translation>{block} 的块只有 {warps} 个 warp：每线程 {n} 个元素</translation>
    </message>
    <message>
        <source>each thread walks {n} elements of line {line} one after another, and the SM holds {pct}% of its warps ({limiter} limit): few loads in flight</source>
        <translation>每个线程依次处理第 {line} 行的 {n} 个元素，而 SM 只驻留其 warp 的 {pct}%（受{limiter}限制）：在途的加载很少</translation>
    </message>
    <message>
        <source>more warps per program (num_warps {old} -&gt; {new})</source>
        <translation>每个程序更多 warp（num_warps {old} -&gt; {new}）</translation>
    </message>
    <message>
        <source>{waves} waves: the last keeps {pct}% of the GPU busy</source>
        <translation>{waves} 波：最后一波只让 GPU 的 {pct}% 忙碌</translation>
    </message>
    <message>
        <source>the SMs were busy {busy}% of the launch; its tail took {share}% of the time</source>
        <translation>整个启动中 SM 只有 {busy}% 的时间在忙；尾部占了 {share}% 的时间</translation>
    </message>
    <message>
        <source>{n} programs on {sms} SMs x {pps} per SM: </source>
        <translation>{n} 个程序，{sms} 个 SM × 每 SM {pps} 个：</translation>
    </message>
    <message>
        <source>{waves} waves of which the last is {last}% full, so {idle}% of the slots idle (formula; a GPU trace with its timeline measures it)</source>
        <translation>共 {waves} 波，最后一波只满 {last}%，因此 {idle}% 的槽位空闲（公式估计；GPU 追踪的时间线可实测）</translation>
    </message>
    <message>
        <source>measured on the GPU: after the last program started ({share}% of the span) the SMs were {busy}% busy; the formula gives {waves} waves</source>
        <translation>GPU 实测：最后一个程序开始之后（占总时长的 {share}%），SM 只有 {busy}% 忙碌；公式给出 {waves} 波</translation>
    </message>
    <message>
        <source>more, smaller programs so the last wave is a smaller share of the time: {options}</source>
        <translation>更多、更小的程序，让最后一波只占更小一部分时间：{options}</translation>
    </message>
    <message>
        <source>split each program&apos;s work (a smaller block, or a persistent loop over tiles)</source>
        <translation>拆分每个程序的工作（更小的块，或在各分块上做持久循环）</translation>
    </message>
    <message>
        <source>{order} order: {gb} GB from DRAM, {fpb} FLOP per byte under the ridge of {ridge}</source>
        <translation>{order}顺序：从 DRAM 读取 {gb} GB，每字节 {fpb} FLOP，低于屋脊点 {ridge}</translation>
    </message>
    <message>
        <source>a wave of {per_wave} programs touches {rows} row panels of A and {cols} column panels of B ({mb} MB; L2 holds {l2} MB); GROUP_SIZE_M={group} would read {gb} GB in all ({fpb} FLOP per byte)</source>
        <translation>一波 {per_wave} 个程序要用到 A 的 {rows} 个行条带和 B 的 {cols} 个列条带（{mb} MB；L2 容量 {l2} MB）；GROUP_SIZE_M={group} 总共只需读取 {gb} GB（每字节 {fpb} FLOP）</translation>
    </message>
    <message>
        <source>grouped program order (GROUP_SIZE_M {old} -&gt; {new}): neighbouring programs share panels of A and B while they are in L2</source>
        <translation>分组的程序顺序（GROUP_SIZE_M {old} -&gt; {new}）：相邻程序在 A、B 的条带仍在 L2 中时共享它们</translation>
    </message>
    <message>
        <source>line {line} {op} of {tensor}: {spr} sectors per request, ideal {ideal}</source>
        <translation>第 {line} 行对 {tensor} 的{op}：每次请求 {spr} 个扇区，理想为 {ideal}</translation>
    </message>
    <message>
        <source>{pct}% of the sectors moved carry bytes a lane asked for ({bytes} bytes wasted over {n} programs); it moves {share}% of the kernel&apos;s sectors</source>
        <translation>搬运的扇区中只有 {pct}% 装的是通道请求的字节（{n} 个程序共浪费 {bytes} 字节）；它占内核扇区的 {share}%</translation>
    </message>
    <message>
        <source>; neighbouring lanes are {stride} bytes apart</source>
        <translation>；相邻通道相距 {stride} 字节</translation>
    </message>
    <message>
        <source>; the block itself is contiguous ({pct}% of its sectors used): each {bits}-bit instruction is narrow, and the warp&apos;s next ones re-read the sectors from L1</source>
        <translation>；块本身是连续的（其扇区用到 {pct}%）：每条 {bits} 位指令都很窄，warp 的后续指令从 L1 重读这些扇区</translation>
    </message>
    <message>
        <source>at line {line}: let consecutive lanes walk the contiguous dimension (the innermost tl.arange on the stride-1 index), or read a transposed copy</source>
        <translation>在第 {line} 行：让相邻通道沿连续维度访问（把最内层的 tl.arange 放在步长为 1 的下标上），或读取一份转置的副本</translation>
    </message>
    <message>
        <source>at line {line}: the lanes already walk the contiguous dimension ({vec} bytes each), but Triton cannot prove the rows 16-byte aligned, so each load is {bits}-bit: pad the rows (their stride) to a multiple of {k} elements (16 bytes), or pass a stride that is a multiple of 16 so Triton can prove the alignment (tl.multiple_of, or its divisibility specialization of integer arguments)</source>
        <translation>在第 {line} 行：相邻通道已经沿连续维度访问（每个 {vec} 字节），但 Triton 无法证明各行按 16 字节对齐，所以每次加载只有 {bits} 位：把行（其步长）补齐到 {k} 个元素（16 字节）的倍数，或传入 16 的倍数作为步长，让 Triton 能证明对齐（tl.multiple_of，或它对整数参数的整除特化）</translation>
    </message>
    <message>
        <source>; this kernel&apos;s own source does so with {flag}={value} (no such access there, compiled for {target}; the same reference)</source>
        <translation>；本内核自己的源码在 {flag}={value} 时就是这样做的（那里没有这种访问，已为 {target} 编译；参考结果相同）</translation>
    </message>
    <message>
        <source>line {line}: {n} elements for {threads} threads, {bits}-bit accesses</source>
        <translation>第 {line} 行：{threads} 个线程只有 {n} 个元素，{bits} 位访问</translation>
    </message>
    <message>
        <source>each thread moves {bits} bits per instruction (128 is the widest)</source>
        <translation>每个线程每条指令只搬运 {bits} 位（最宽为 128 位）</translation>
    </message>
    <message>
        <source> and {pct}% of the elements are held by several threads</source>
        <translation>，且 {pct}% 的元素由多个线程重复持有</translation>
    </message>
    <message>
        <source>; {pps} programs per SM keep {bytes} bytes of this access in flight</source>
        <translation>；每 SM {pps} 个程序使这次访问只有 {bytes} 字节在途</translation>
    </message>
    <message>
        <source>a larger block ({param} {old} -&gt; {new}): 128-bit accesses, two per thread</source>
        <translation>更大的块（{param} {old} -&gt; {new}）：128 位访问，每线程两次</translation>
    </message>
    <message>
        <source>at line {line}: a block of at least {n} elements</source>
        <translation>在第 {line} 行：块至少要有 {n} 个元素</translation>
    </message>
    <message>
        <source>{pct}% of the lanes of loads and stores are masked off</source>
        <translation>加载与存储中有 {pct}% 的通道被掩码关闭</translation>
    </message>
    <message>
        <source>sampled {n} of {total} programs (the first and the last); line {line} masks {lanes} lanes there. Masked lanes issue nothing but hold their threads</source>
        <translation>在 {total} 个程序中抽样了 {n} 个（首尾）；第 {line} 行在其中屏蔽了 {lanes} 个通道。被屏蔽的通道不发出访问，却仍占着线程</translation>
    </message>
    <message>
        <source>a block closer to the size it covers (or a loop over it in smaller blocks)</source>
        <translation>让块更贴近它覆盖的大小（或用更小的块循环处理）</translation>
    </message>
    <message>
        <source>compute-bound at {pct}% of the measured matmul roof</source>
        <translation>计算受限，达到实测矩阵乘法峰值的 {pct}%</translation>
    </message>
    <message>
        <source>memory-bound at {pct}% of the measured copy roof</source>
        <translation>访存受限，达到实测拷贝带宽峰值的 {pct}%</translation>
    </message>
    <message>
        <source>{fpb} FLOP per byte against a ridge of {ridge}</source>
        <translation>每字节 {fpb} FLOP，屋脊点为 {ridge}</translation>
    </message>
    <message>
        <source>the ridge is unknown</source>
        <translation>屋脊点未知</translation>
    </message>
    <message>
        <source>; the roof: {source}</source>
        <translation>；峰值来源：{source}</translation>
    </message>
    <message>
        <source>registers</source>
        <translation>寄存器</translation>
    </message>
    <message>
        <source>shared memory</source>
        <translation>共享内存</translation>
    </message>
    <message>
        <source>warps</source>
        <translation>warp 数</translation>
    </message>
    <message>
        <source>blocks</source>
        <translation>块数</translation>
    </message>
    <message>
        <source>row-major</source>
        <translation>行优先</translation>
    </message>
    <message>
        <source>load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>store</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>a tensor</source>
        <translation>某个张量</translation>
    </message>
    <message>
        <source>A row panels a wave loads</source>
        <translation>每波加载的 A 行块数</translation>
    </message>
    <message>
        <source>B column panels a wave loads</source>
        <translation>每波加载的 B 列块数</translation>
    </message>
    <message>
        <source>block (elements)</source>
        <translation>块形状（元素）</translation>
    </message>
    <message>
        <source>coalescing efficiency of the whole block</source>
        <translation>整块的合并效率</translation>
    </message>
    <message>
        <source>threads per element</source>
        <translation>每元素线程数</translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>elements in the block</source>
        <translation>块内元素数</translation>
    </message>
    <message>
        <source>elements per thread</source>
        <translation>每线程元素数</translation>
    </message>
    <message>
        <source>FLOP per byte</source>
        <translation>每字节 FLOP</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>带宽（GB/s）</translation>
    </message>
    <message>
        <source>GROUP_SIZE_M now</source>
        <translation>当前 GROUP_SIZE_M</translation>
    </message>
    <message>
        <source>GB moved, grouped</source>
        <translation>分组后传输的 GB</translation>
    </message>
    <message>
        <source>ideal sectors per request</source>
        <translation>每请求理想扇区数</translation>
    </message>
    <message>
        <source>L2 size (MB)</source>
        <translation>L2 容量（MB）</translation>
    </message>
    <message>
        <source>stride between lanes (bytes)</source>
        <translation>相邻线程的步长（字节）</translation>
    </message>
    <message>
        <source>last wave's fill</source>
        <translation>最后一波的填充比例</translation>
    </message>
    <message>
        <source>GB moved, this launch</source>
        <translation>本次启动传输的 GB</translation>
    </message>
    <message>
        <source>limited by</source>
        <translation>限制因素</translation>
    </message>
    <message>
        <source>masked lanes (fraction)</source>
        <translation>被屏蔽线程的比例</translation>
    </message>
    <message>
        <source>misaligned vector (bytes)</source>
        <translation>未对齐的向量（字节）</translation>
    </message>
    <message>
        <source>num_warps</source>
        <translation>warp 数（num_warps）</translation>
    </message>
    <message>
        <source>% of the roof</source>
        <translation>占屋顶的百分比</translation>
    </message>
    <message>
        <source>programs per wave</source>
        <translation>每波程序数</translation>
    </message>
    <message>
        <source>programs</source>
        <translation>程序数</translation>
    </message>
    <message>
        <source>programs per SM</source>
        <translation>每个 SM 的程序数</translation>
    </message>
    <message>
        <source>programs sampled</source>
        <translation>抽样的程序数</translation>
    </message>
    <message>
        <source>programs traced</source>
        <translation>追踪的程序数</translation>
    </message>
    <message>
        <source>registers per thread</source>
        <translation>每线程寄存器数</translation>
    </message>
    <message>
        <source>registers per thread for one more program</source>
        <translation>多驻留一个程序所需的每线程寄存器数</translation>
    </message>
    <message>
        <source>ridge (FLOP per byte)</source>
        <translation>脊点（每字节 FLOP）</translation>
    </message>
    <message>
        <source>sectors per request</source>
        <translation>每请求扇区数</translation>
    </message>
    <message>
        <source>share of the kernel's sectors</source>
        <translation>占内核扇区的比例</translation>
    </message>
    <message>
        <source>shared memory per program (bytes)</source>
        <translation>每程序共享内存（字节）</translation>
    </message>
    <message>
        <source>shared memory per program for one more (bytes)</source>
        <translation>多驻留一个程序所需的每程序共享内存（字节）</translation>
    </message>
    <message>
        <source>SMs busy (fraction)</source>
        <translation>SM 忙碌比例</translation>
    </message>
    <message>
        <source>SMs</source>
        <translation>SM 数</translation>
    </message>
    <message>
        <source>spilled bytes per thread</source>
        <translation>每线程溢出字节数</translation>
    </message>
    <message>
        <source>spill instructions</source>
        <translation>溢出指令数</translation>
    </message>
    <message>
        <source>spill instructions on this line</source>
        <translation>本行的溢出指令数</translation>
    </message>
    <message>
        <source>SMs busy in the tail (fraction)</source>
        <translation>尾部 SM 忙碌比例</translation>
    </message>
    <message>
        <source>tail's share of the time</source>
        <translation>尾部占用的时间比例</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>算力（TFLOP/s）</translation>
    </message>
    <message>
        <source>threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <source>vector width (bits)</source>
        <translation>向量宽度（位）</translation>
    </message>
    <message>
        <source>warps resident (% of the SM's)</source>
        <translation>驻留 warp 占 SM 的百分比</translation>
    </message>
    <message>
        <source>MB a wave loads</source>
        <translation>每波加载的 MB</translation>
    </message>
    <message>
        <source>waves</source>
        <translation>波数</translation>
    </message>
</context>
</TS>
