"""Inside one program: layouts of a compiled kernel's accesses (Triton's linear layouts), which
thread holds which element, and the coalescing and bank-conflict numbers of each access."""
